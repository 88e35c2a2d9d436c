"""HTTPS: certificates are verified, and ``SSL_CERT_FILE`` names the ones to trust.

A real TLS server on 127.0.0.1 presents a self-signed certificate made for the test: refused
(coverage loss, ``server``) until ``SSL_CERT_FILE`` names it, then answered.
"""

from __future__ import annotations

import datetime
import ipaddress
import json
import ssl
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from chat_exchange import chat_exchange
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from fcbench.contract import ProviderErrorOutcome, TextOutcome

REPLY = {
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "over TLS"}, "finish_reason": "stop"}
    ]
}


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key, as PEM files."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "fcbench test")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = folder / "cert.pem", folder / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return cert_file, key_file


class _Reply(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 (http.server naming)
        self.rfile.read(int(self.headers.get("content-length") or 0))
        body = json.dumps(REPLY).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (http.server naming)
        return


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """``(https root URL, certificate file)`` of a TLS server on 127.0.0.1."""
    cert_file, key_file = self_signed(tmp_path)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Reply)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}", cert_file
    finally:
        server.shutdown()
        server.server_close()


def send(base_url: str) -> Any:
    return chat_exchange(base_url, "sk-tls-test")


def test_an_untrusted_certificate_is_refused(
    tls_server: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    outcome = send(tls_server[0] + "/v1").turn.outcome
    assert isinstance(outcome, ProviderErrorOutcome) and outcome.code == "server"
    assert "certificate" in outcome.message.lower(), outcome.message


def test_the_certificates_ssl_cert_file_names_are_trusted(
    tls_server: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, cert_file = tls_server
    monkeypatch.setenv("SSL_CERT_FILE", str(cert_file))
    outcome = send(url + "/v1").turn.outcome
    assert isinstance(outcome, TextOutcome) and outcome.text == "over TLS"
