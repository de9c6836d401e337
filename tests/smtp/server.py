#!/usr/bin/env python3
"""A real SMTP server on loopback for pbem's integration tests (aiosmtpd).

Listens on 127.0.0.1 at a port the system chooses and prints `PORT <n>` as the first
line of standard output once it accepts connections. Serves until standard input closes
or it gets SIGTERM. Every accepted message is delivered into the Maildir given (a file
in new/).

At start it makes a certificate authority and a server certificate for 127.0.0.1 and
localhost with openssl in --tls-dir: ca.pem is what the client must trust.

Modes (default: STARTTLS offered and required, AUTH PLAIN/LOGIN only after TLS):
  --implicit-tls      TLS from the first byte instead of STARTTLS
  --plain             no TLS at all; AUTH offered in plain text
  --no-starttls       plain text, no STARTTLS offered (the client must refuse)
Faults:
  --refuse-login      every login fails with 535
  --drop-mid-message  the connection is closed after the message data, before the 250
  --reject-data       the message is rejected with 554 after its data
"""

import argparse
import asyncio
import mailbox
import os
import signal
import ssl
import subprocess
import sys
import threading

from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword


def make_certificates(directory):
    """A CA and a server certificate signed by it, for 127.0.0.1 and localhost."""
    os.makedirs(directory, exist_ok=True)
    ca_key = os.path.join(directory, "ca-key.pem")
    ca_cert = os.path.join(directory, "ca.pem")
    key = os.path.join(directory, "server-key.pem")
    request = os.path.join(directory, "server.csr")
    cert = os.path.join(directory, "server.pem")
    extensions = os.path.join(directory, "server.ext")
    with open(extensions, "w") as out:
        out.write(
            "basicConstraints=critical,CA:FALSE\n"
            "keyUsage=critical,digitalSignature,keyEncipherment\n"
            "extendedKeyUsage=serverAuth\n"
            "subjectAltName=IP:127.0.0.1,DNS:localhost\n"
        )

    def openssl(*arguments):
        subprocess.run(["openssl", *arguments], check=True, capture_output=True)

    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
            "-nodes", "-keyout", ca_key, "-out", ca_cert, "-days", "2",
            "-subj", "/CN=pbem test CA")
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", key, "-out", request, "-subj", "/CN=localhost")
    openssl("x509", "-req", "-in", request, "-CA", ca_cert, "-CAkey", ca_key,
            "-CAcreateserial", "-out", cert, "-days", "2", "-extfile", extensions)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    return context


class Handler:
    def __init__(self, maildir, drop, reject):
        self.maildir = mailbox.Maildir(maildir, create=True)
        self.drop = drop
        self.reject = reject

    async def handle_DATA(self, server, session, envelope):
        if self.drop:
            server.transport.abort()
            return "421 4.3.0 closing (never sent: the connection is gone)"
        if self.reject:
            return "554 5.6.0 message rejected by the test server"
        self.maildir.add(envelope.original_content)
        return "250 2.0.0 delivered"


class Authenticator:
    def __init__(self, user, password, refuse):
        self.user = user.encode()
        self.password = password.encode()
        self.refuse = refuse

    def __call__(self, server, session, envelope, mechanism, auth_data):
        if self.refuse or not isinstance(auth_data, LoginPassword):
            return AuthResult(success=False, handled=False)
        good = auth_data.login == self.user and auth_data.password == self.password
        return AuthResult(success=good, handled=False)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--maildir", required=True)
    parser.add_argument("--tls-dir", required=True)
    parser.add_argument("--user", default="alice")
    parser.add_argument("--password", default="secret")
    parser.add_argument("--implicit-tls", action="store_true")
    parser.add_argument("--plain", action="store_true")
    parser.add_argument("--no-starttls", action="store_true")
    parser.add_argument("--refuse-login", action="store_true")
    parser.add_argument("--drop-mid-message", action="store_true")
    parser.add_argument("--reject-data", action="store_true")
    options = parser.parse_args()

    context = make_certificates(options.tls_dir)
    handler = Handler(options.maildir, options.drop_mid_message, options.reject_data)
    authenticator = Authenticator(options.user, options.password, options.refuse_login)
    unencrypted = options.plain or options.no_starttls

    def factory():
        return SMTP(
            handler,
            hostname="pbem-test",
            tls_context=None if unencrypted or options.implicit_tls else context,
            require_starttls=not unencrypted and not options.implicit_tls,
            authenticator=authenticator,
            auth_required=True,
            # With implicit TLS the whole connection is encrypted, but aiosmtpd only
            # knows about TLS it started itself (STARTTLS).
            auth_require_tls=not unencrypted and not options.implicit_tls,
        )

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    server = loop.run_until_complete(
        loop.create_server(
            factory,
            host="127.0.0.1",
            port=0,
            ssl=context if options.implicit_tls else None,
        )
    )
    port = server.sockets[0].getsockname()[1]

    def stop(*_):
        loop.call_soon_threadsafe(loop.stop)

    signal.signal(signal.SIGTERM, stop)

    def wait_for_stdin():
        sys.stdin.read()
        stop()

    threading.Thread(target=wait_for_stdin, daemon=True).start()
    print(f"PORT {port}", flush=True)
    try:
        loop.run_forever()
    finally:
        server.close()


if __name__ == "__main__":
    main()
