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


def parse_args(argv=None):
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="role", required=True)
    p = sub.add_parser("produce")
    p.add_argument("--bootstrap", required=True)
    p.add_argument("--topic", required=True)
    p.add_argument("--from", dest="start", type=int, required=True)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--partitions", type=int, default=3)
    c = sub.add_parser("consume")
    c.add_argument("--bootstrap", required=True)
    c.add_argument("--topic", required=True)
    c.add_argument("--group", required=True)
    c.add_argument("--client-id", required=True)
    c.add_argument("--instance")
    c.add_argument("--session-timeout-ms", type=int, default=10000)
    c.add_argument("--max-seconds", type=float, default=120)
    d = sub.add_parser("describe")
    d.add_argument("--bootstrap", required=True)
    d.add_argument("--group", required=True)
    r = sub.add_parser("remove")
    r.add_argument("--bootstrap", required=True)
    r.add_argument("--group", required=True)
    r.add_argument("--instance", required=True)
    t = sub.add_parser("transact")
    t.add_argument("--bootstrap", required=True)
    t.add_argument("--topic", required=True)
    t.add_argument("--from", dest="start", type=int, required=True)
    t.add_argument("--commit", type=int, required=True)
    t.add_argument("--abort", type=int, required=True)
    t.add_argument("--transactional-id", required=True)
    t.add_argument("--partitions", type=int, default=3)
    rd = sub.add_parser("read")
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
