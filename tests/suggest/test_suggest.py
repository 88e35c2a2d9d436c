"""The one "did you mean": close names suggested, nothing alike gives the list of known names."""

from __future__ import annotations

from fcbench.suggest import close_names, did_you_mean, unknown_name


def test_the_closest_names_come_first_and_at_most_three() -> None:
    known = ["types-01", "types-02", "types-03", "types-04", "select-01"]
    close = close_names("types-1", known)
    assert close[0] == "types-01"
    assert len(close) == 3 and all(name.startswith("types-") for name in close)
    assert close_names("refunds", known) == []


def test_a_near_miss_is_suggested_and_a_far_one_lists_the_known_names() -> None:
    assert did_you_mean("selction", ["selection", "recovery"]) == " (did you mean 'selection'?)"
    assert did_you_mean("zzz", ["selection", "recovery"]) == ""
    assert (
        unknown_name("mode", "recovry", ["selection", "recovery"])
        == "unknown mode 'recovry' (did you mean 'recovery'?)"
    )
    assert unknown_name("mode", "zzz", ["selection", "recovery", "selection"]) == (
        "unknown mode 'zzz'; known: selection, recovery"
    )
