"""Made-up secrets of every documented kind (:data:`fcbench.redact.SECRET_PATTERNS`), for the
redactor's tests and for the verbs' tests that no output holds one.

The values are assembled from pieces, so no file of the project holds a string that a secret
scanner would take for a real credential.
"""

from __future__ import annotations

ALNUM = "Q7wErTy9UiOp3AsDfGh2JkLzXc4VbNm8"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY"
B64_PEM = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"

KINDS: dict[str, list[tuple[str, str]]] = {
    # kind: [(text holding the secret, the secret itself)]
    "openai_key": [
        ("key sk-" + ALNUM + " in text", "sk-" + ALNUM),
        ("sk-proj-" + ALNUM + "_-x", "sk-proj-" + ALNUM + "_-x"),
    ],
    "anthropic_key": [("x-api-key: sk-ant-api03-" + ALNUM, "sk-ant-api03-" + ALNUM)],
    "google_api_key": [("?alt=sse&k=AIza" + ALNUM + "abc", "AIza" + ALNUM + "abc")],
    "aws_access_key_id": [
        ("id AKIA" + "IOSFODNN7EXAMPLE" + " used", "AKIA" + "IOSFODNN7EXAMPLE"),
        ("ASIA" + "Y34FZKBOKMUTVV7A", "ASIA" + "Y34FZKBOKMUTVV7A"),
    ],
    "aws_secret_access_key": [
        ("aws_secret_access_key = " + AWS_SECRET, AWS_SECRET),
        ('{"AWS_SECRET_ACCESS_KEY": "' + AWS_SECRET + '"}', AWS_SECRET),
    ],
    "github_token": [
        ("token ghp_" + ALNUM + "abcd", "ghp_" + ALNUM + "abcd"),
        ("gho_" + ALNUM, "gho_" + ALNUM),
        ("ghs_" + ALNUM, "ghs_" + ALNUM),
        ("github_pat_11ABC" + ALNUM, "github_pat_11ABC" + ALNUM),
    ],
    "stripe_key": [
        ("sk_live_" + ALNUM[:24], "sk_live_" + ALNUM[:24]),
        ("rk_live_" + ALNUM[:24], "rk_live_" + ALNUM[:24]),
        ("sk_test_" + ALNUM[:24], "sk_test_" + ALNUM[:24]),
    ],
    "slack_token": [("xoxb-" + "1234567890-" + ALNUM[:20], "xoxb-1234567890-" + ALNUM[:20])],
    "jwt": [
        (
            "id_tok eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpM",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpM",
        )
    ],
    "authorization_value": [
        ("Authorization: Bearer " + ALNUM, ALNUM),
        ("authorization: Basic dXNlcjpodW50ZXIy", "dXNlcjpodW50ZXIy"),
    ],
    "url_password": [
        ("postgres://app:Hunter2pass@db.internal:5432/shop", "Hunter2pass"),
        ("see https://bob:s3cr3t@example.com/x", "s3cr3t"),
    ],
    "private_key_block": [
        (
            "-----BEGIN RSA PRIVATE KEY-----\n" + B64_PEM + "\n-----END RSA PRIVATE KEY-----",
            B64_PEM,
        ),
        ("-----BEGIN PRIVATE KEY-----\\n" + B64_PEM + " (cut)", B64_PEM),
    ],
    "secret_assignment": [
        ('{"password": "correct horse"}', "correct horse"),
        ("https://h/cb?client_secret=Zx81aa&state=1", "Zx81aa"),
        ("API_TOKEN=plainvalue123 next", "plainvalue123"),
        ('{\\"api_key\\":\\"escaped-in-json\\"}', "escaped-in-json"),
    ],
}


def every_secret() -> list[str]:
    """Each sample's secret (the part that must never be written)."""
    return [secret for samples in KINDS.values() for _, secret in samples]


def one_text_of_each() -> str:
    """One line holding every sample, each between spaces."""
    return " ".join(text for samples in KINDS.values() for text, _ in samples)
