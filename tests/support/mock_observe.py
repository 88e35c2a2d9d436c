"""The observation context of a test that plays turns against the mock provider through the kernel."""

from __future__ import annotations

from fcbench.pricing import PriceTable
from fcbench.run.observe import ObservationContext, RequestHeaders
from fcbench.schema.validate import ValidatorCache
from fcbench.suite.loader import Suite
from fcbench.transport import RetryPolicy, Transport


def mock_context(suite: Suite, endpoint: str, headers: RequestHeaders | None = None) -> ObservationContext:
    """A context for one built-in mock ``endpoint`` (no retries, a fixed seed, the mock's key).

    The caller closes ``ctx.transport`` (``await ctx.transport.aclose()``).
    """
    return ObservationContext(
        run_id="test-run",
        suite=suite,
        transport=Transport(retry=RetryPolicy(max_retries=0)),
        prices=PriceTable({}),
        validators=ValidatorCache(),
        api_keys={endpoint: "sim-key"},
        temperature=0.0,
        max_tokens=256,
        seed=7,
        headers=headers,
    )
