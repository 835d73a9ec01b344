# The command-line plumbing PROTOCOL.md gives every client-matrix app, shared by the Python apps
# (confluent_app.py, kcat_app.py, kafka_python_app.py): one JSON object per stdout line, the
# roles and their options, and the error line plus exit code 1 for anything a role lets
# escape. (The TypeScript apps share app-cli.ts.)
import argparse
import json
import sys


def emit(obj):
    """One JSON object on its own stdout line, flushed at once (the driver reads lines as they come)."""
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def security_parser():
    """The security options every role takes (PROTOCOL.md, "Security options")."""
    sp = argparse.ArgumentParser(add_help=False)
    sp.add_argument("--security-protocol", choices=["SASL_SSL"])
    sp.add_argument("--sasl-mechanism", choices=["PLAIN", "SCRAM-SHA-256"])
    sp.add_argument("--sasl-username")
    sp.add_argument("--sasl-password")
    sp.add_argument("--ssl-ca")
    return sp


def security(args):
    """The security options as a dict (protocol, mechanism, username, password, ca), or None
    (PLAINTEXT) when none is given; some but not all of them is a usage error."""
    keys = ["security_protocol", "sasl_mechanism", "sasl_username", "sasl_password", "ssl_ca"]
    given = [k for k in keys if getattr(args, k, None) is not None]
    if not given:
        return None
    if len(given) != len(keys):
        raise ValueError("the security options go together: missing " +
                         ", ".join("--" + k.replace("_", "-") for k in keys if k not in given))
    return {"protocol": args.security_protocol, "mechanism": args.sasl_mechanism,
            "username": args.sasl_username, "password": args.sasl_password, "ca": args.ssl_ca}


def parse_args(argv=None):
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="role", required=True)
    sec = security_parser()
    p = sub.add_parser("produce", parents=[sec])
    p.add_argument("--bootstrap", required=True)
    p.add_argument("--topic", required=True)
    p.add_argument("--from", dest="start", type=int, required=True)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--partitions", type=int, default=3)
    c = sub.add_parser("consume", parents=[sec])
    c.add_argument("--bootstrap", required=True)
    c.add_argument("--topic", required=True)
    c.add_argument("--group", required=True)
    c.add_argument("--client-id", required=True)
    c.add_argument("--instance")
    c.add_argument("--session-timeout-ms", type=int, default=10000)
    c.add_argument("--max-seconds", type=float, default=120)
    d = sub.add_parser("describe", parents=[sec])
    d.add_argument("--bootstrap", required=True)
    d.add_argument("--group", required=True)
    r = sub.add_parser("remove", parents=[sec])
    r.add_argument("--bootstrap", required=True)
    r.add_argument("--group", required=True)
    r.add_argument("--instance", required=True)
    t = sub.add_parser("transact", parents=[sec])
    t.add_argument("--bootstrap", required=True)
    t.add_argument("--topic", required=True)
    t.add_argument("--from", dest="start", type=int, required=True)
    t.add_argument("--commit", type=int, required=True)
    t.add_argument("--abort", type=int, required=True)
    t.add_argument("--transactional-id", required=True)
    t.add_argument("--partitions", type=int, default=3)
    rd = sub.add_parser("read", parents=[sec])
    rd.add_argument("--bootstrap", required=True)
    rd.add_argument("--topic", required=True)
    rd.add_argument("--until", type=parse_until, required=True)
    rd.add_argument("--isolation", choices=["read_committed", "read_uncommitted"], default="read_committed")
    rd.add_argument("--max-seconds", type=float, default=60)
    return ap.parse_args(argv)


def parse_until(text):
    """`--until 0:4,1:4,2:2` (read): {partition: offset to read up to}."""
    out = {}
    for item in text.split(","):
        p, o = item.split(":")
        out[int(p)] = int(o)
    return out


def run(roles, error_line=lambda e: {"event": "error", "name": None, "message": repr(e)}):
    """Parses the command line and runs its role (`roles`: name -> function(args) -> exit code).
    An exception a role lets escape becomes the contract's error line (`error_line(e)`) and exit 1."""
    args = parse_args()
    try:
        return roles[args.role](args)
    except Exception as e:  # noqa: BLE001 - the contract wants an error line, then exit 1
        emit(error_line(e))
        return 1
