#!/usr/bin/python3
# The client-matrix app (test/conformance/clients/PROTOCOL.md) for librdkafka through the kcat
# binary (kcat 1.7.1 on librdkafka 2.0.2): a thin wrapper that runs kcat and turns what kcat
# prints into the contract's JSON lines.
#
#   kcat_app.py produce  --bootstrap B --topic T --from I --count N [--partitions P]
#       one `kcat -P -p <partition> -K '\t'` per partition, records fed on stdin as "k<i>\tv<i>".
#   kcat_app.py consume  --bootstrap B --topic T --group G --client-id C [--instance ID]
#                        [--session-timeout-ms S] [--max-seconds M]
#       `kcat -G G -J T` (the balanced KafkaConsumer); see consume() for how its output is read.
#   kcat_app.py describe | remove   -> unsupported (exit 2): kcat has no group admin commands.
#   kcat_app.py transact --bootstrap B --topic T --from I --commit N --abort M --transactional-id X
#                        [--partitions P]
#       `kcat -P -p <partition> -X transactional.id=X`: one transaction per partition (kcat -P
#       writes to one partition), see transact().
#   kcat_app.py read --bootstrap B --topic T --until P:O,... [--isolation L] [--max-seconds S]
#       `kcat -C -o beginning -e -J -X isolation.level=L`.
#
# One JSON object per line on stdout, flushed at once; kcat's own lines go to stderr.
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

KCAT = os.environ.get("KCAT", "kcat")


from app_cli import emit, run, security  # noqa: E402 - the script's own directory
from librdkafka_errors import name_from_text  # noqa: E402


def security_x(args):
    """The security options (PROTOCOL.md) as kcat's -X librdkafka properties (none: PLAINTEXT)."""
    sec = security(args)
    if sec is None:
        return []
    props = {"security.protocol": sec["protocol"], "sasl.mechanisms": sec["mechanism"],
             "sasl.username": sec["username"], "sasl.password": sec["password"], "ssl.ca.location": sec["ca"]}
    return [x for k, v in props.items() for x in ("-X", "%s=%s" % (k, v))]


def line_buffered(argv):
    """kcat's stdout and stderr share one pipe (so that rebalance lines and messages keep their
    order); stdbuf makes both line-buffered, so that every line reaches the pipe in one write and
    lines written by librdkafka's threads cannot cut into another line. Without stdbuf, kcat's
    own -u (unbuffered stdout) is the next best thing."""
    if shutil.which("stdbuf"):
        return ["stdbuf", "-oL", "-eL"] + argv
    return argv[:1] + ["-u"] + argv[1:]


def die_with_parent():
    """preexec_fn: kcat gets SIGKILL when this wrapper dies, so that a SIGKILLed wrapper is a
    crashed kcat (no close, no final commit) and not an orphan that goes on heartbeating."""
    parent = os.getppid()
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:  # noqa: BLE001 - not Linux: nothing to be done
        return
    if os.getppid() != parent:  # the wrapper died before prctl()
        os.kill(os.getpid(), signal.SIGKILL)


# ---------------------------------------------------------------------------------------------
# produce


def produce(args):
    by_partition = {}
    for i in range(args.start, args.start + args.count):
        by_partition.setdefault(i % args.partitions, []).append(i)
    for partition in sorted(by_partition):
        argv = [KCAT, "-b", args.bootstrap] + security_x(args) + ["-P", "-t", args.topic, "-p", str(partition), "-K", "\\t",
                "-X", "client.id=matrix-kcat-producer",
                "-X", "acks=all", "-X", "enable.idempotence=false",
                "-X", "message.timeout.ms=30000", "-X", "linger.ms=5"]
        data = "".join("k%d\tv%d\n" % (i, i) for i in by_partition[partition])
        r = subprocess.run(argv, input=data.encode(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           timeout=120, preexec_fn=die_with_parent)
        err = r.stderr.decode("utf-8", "replace")
        sys.stderr.write(err)
        if r.returncode != 0:
            # kcat -P: "% Delivery failed for message: <description>" per failed record, exit 1.
            lines = [l for l in err.splitlines() if "Delivery failed" in l or "ERROR" in l]
            text = lines[0] if lines else "kcat -P exited with %d" % r.returncode
            emit({"event": "error", "name": name_from_text(text), "message": text, "partition": partition})
            return 1
    emit({"event": "produced", "count": args.count})
    return 0


# ---------------------------------------------------------------------------------------------
# consume
#
# How kcat -G commits: it never commits itself; it leaves that to librdkafka's automatic commit
# (enable.auto.commit=true, the default) of the offsets librdkafka stores for every message
# that rd_kafka_consumer_poll() returns (enable.auto.offset.store=true). With
# enable.auto.commit=false nothing would ever be committed. So this app runs with automatic
# commits, unlike the others. Their interval cannot be shortened from kcat's command line:
# `-X auto.commit.interval.ms=N` lands on librdkafka's legacy *topic* property of that name
# (kcat tries the topic configuration first), and the consumer keeps the global default of 5000
# ms (`kcat -X auto.commit.interval.ms=200 -X dump` shows both). librdkafka also commits the
# stored offsets when the assignment is revoked (rebalance, close), so a SIGTERMed member has
# committed everything it printed before it exits.
#
# Commits are observed through librdkafka's debug log (-d cgrp; kcat's stdout and stderr share
# one pipe, see line_buffered()): "Committing offsets for N partition(s) ... : <reason>" when a
# request goes out, "OffsetCommit for N partition(s) ...: <reason>: returned: Success" (or the
# error) when it is answered. The auto-commit timer's commits are preceded by one line per
# partition, "Topic T [p]: stored offset X, committed offset Y: setting stored offset X for
# commit", which give the offsets exactly; the commit on revocation (rebalance, close) logs no
# such lines, and the offsets reported for it are the next offsets of the records printed and
# not yet reported as committed (which is what librdkafka stored for them). So a committed
# event comes up to 5 s after the records it covers, or at the next revocation, and a SIGKILLed
# kcat loses what it consumed since the last one.
#
# Rebalances: kcat's rebalance callback prints (verbosity 1, stderr)
#   "% Group G rebalanced (memberid M): assigned: T [0], T [2]"  and  "...: revoked: T [0], ..."
# A lost assignment is reported by librdkafka as a revocation; kcat prints it as "revoked".
# A fatal error (FENCED_INSTANCE_ID) reaches kcat one of two ways, whichever librdkafka serves
# first: its error callback prints "% FATAL CLIENT ERROR: <description>: <reason>: terminating"
# and kcat closes the consumer and exits with code 0; or rd_kafka_consumer_poll() returns it as
# a message error, and kcat prints "% ERROR: Consumer error: Fatal error: <description>: ..."
# and exits with code 1 at once. Either way this app prints a fatal line and exits 3.
#
# A static member's close (SIGTERM): librdkafka 2.0.2 sends no LeaveGroup when group.instance.id
# is set; kcat prints the revocation and librdkafka commits the stored offsets first.


def parse_partitions(text, topic):
    """'T [0], T [2]' -> [0, 2] for topic T."""
    out = []
    for item in text.split(","):
        item = item.strip()
        if not item.endswith("]") or " [" not in item:
            continue
        t, p = item[:-1].rsplit(" [", 1)
        if t == topic:
            try:
                out.append(int(p))
            except ValueError:
                pass
    return sorted(out)


class KcatConsumer:
    def __init__(self, args):
        self.args = args
        self.fatal = None
        self.last_error = None
        self.stored = {}     # partition -> offset logged as "setting stored offset X for commit"
        self.printed = {}    # partition -> next offset after the last record printed
        self.reported = {}   # partition -> offset in the last committed event
        self.inflight = []   # offsets of the commit requests sent, oldest first
        self.started = False
        self.term_requested = False

    def argv(self):
        a = self.args
        session = a.session_timeout_ms
        argv = [KCAT, "-b", a.bootstrap] + security_x(a) + ["-G", a.group, "-J", "-E", "-d", "cgrp",
                "-X", "client.id=%s" % a.client_id,
                "-X", "session.timeout.ms=%d" % session,
                "-X", "heartbeat.interval.ms=%d" % max(1, session // 10),
                "-X", "partition.assignment.strategy=range",
                "-X", "auto.offset.reset=earliest",
                "-X", "enable.auto.commit=true",
                "-X", "fetch.wait.max.ms=100"]
        if a.instance:
            argv += ["-X", "group.instance.id=%s" % a.instance]
        argv.append(a.topic)
        return line_buffered(argv)

    def handle(self, line):
        topic = self.args.topic
        if line.startswith("{"):
            try:
                m = json.loads(line)
            except ValueError:
                m = None
            if isinstance(m, dict) and "partition" in m and "offset" in m:
                if m.get("topic") == topic:
                    self.printed[m["partition"]] = m["offset"] + 1
                    emit({"event": "message", "partition": m["partition"], "offset": m["offset"],
                          "key": m.get("key"), "value": m.get("payload")})
                return
        sys.stderr.write(line + "\n")
        if line.startswith("%7|"):
            self.handle_debug(line)
            return
        if line.startswith("% Waiting for group rebalance"):
            if not self.started:
                self.started = True
                emit({"event": "started"})
        elif line.startswith("% Group ") and " rebalanced " in line:
            if "): assigned: " in line:
                emit({"event": "assigned", "partitions": parse_partitions(line.split("): assigned: ", 1)[1], topic)})
            elif "): revoked: " in line:
                emit({"event": "revoked", "partitions": parse_partitions(line.split("): revoked: ", 1)[1], topic)})
            elif "incremental assignment" in line:  # cooperative protocol (not used: range is eager)
                emit({"event": "assigned", "partitions": parse_partitions(line.rsplit("): ", 1)[1], topic)})
            elif "incremental revoke" in line:
                emit({"event": "revoked", "partitions": parse_partitions(line.rsplit("): ", 1)[1], topic)})
        elif line.startswith("% FATAL CLIENT ERROR: "):
            text = line[len("% FATAL CLIENT ERROR: "):]
            if text.endswith(": terminating"):
                text = text[: -len(": terminating")]
            if self.fatal is None:
                self.fatal = {"event": "fatal", "name": name_from_text(text), "message": text}
        elif line.startswith("% ERROR: Consumer error: Fatal error: "):
            # the fatal error, when rd_kafka_consumer_poll() returns it before the error callback
            # has run: kcat exits(1) at once ("Consumer error: Fatal error: <description>: ...")
            text = line[len("% ERROR: Consumer error: Fatal error: "):]
            if self.fatal is None:
                self.fatal = {"event": "fatal", "name": name_from_text(text), "message": text}
        elif line.startswith("% ERROR: "):
            # kcat's error callback (with -E it survives them), or its last word before exit(1)
            text = line[len("% ERROR: "):]
            self.last_error = text
            if self.fatal is None:
                emit({"event": "error", "name": name_from_text(text), "message": text})

    def handle_debug(self, line):
        # "%7|<ts>|<FACILITY>|<client>| [thrd:<name>]: <text>"
        parts = line.split("|", 4)
        if len(parts) < 5:
            return
        fac, text = parts[2], parts[4].strip()
        if text.startswith("[thrd:") and "]: " in text:
            text = text.split("]: ", 1)[1]
        if fac == "OFFSET" and text.startswith("Topic ") and "setting stored offset" in text:
            # the auto-commit timer's path: "Topic T [p]: stored offset X, committed offset Y:
            # setting stored offset X for commit", one per partition, then "Committing offsets"
            try:
                head, rest = text[len("Topic "):].split("]: stored offset ", 1)
                t, p = head.rsplit(" [", 1)
                off = int(rest.split()[0].rstrip(",:"))
            except ValueError:
                return
            if t == self.args.topic:
                self.stored[int(p)] = off
        elif fac == "COMMIT" and "Committing offsets for " in text:
            # a commit request is sent. The commit on revocation ("unassigned partitions") logs
            # no per-partition lines: it commits what librdkafka stored, i.e. the next offset of
            # every record kcat printed (enable.auto.offset.store), so those stand in for them.
            offsets = self.stored
            if not offsets:
                offsets = {p: o for p, o in self.printed.items() if self.reported.get(p) != o}
            self.stored = {}
            self.inflight.append(offsets)
        elif fac == "COMMIT" and "OffsetCommit for " in text and ": returned: " in text:
            # librdkafka logs some results twice (response handler, then op reply): the FIFO
            # of requests in flight is empty for the second one.
            if not self.inflight:
                return
            offsets = self.inflight.pop(0)
            result = text.rsplit(": returned: ", 1)[1].strip()
            if result == "Success":
                if offsets:
                    self.reported.update(offsets)
                    emit({"event": "committed", "offsets": {str(p): o for p, o in sorted(offsets.items())}})
            else:
                emit({"event": "error", "during": "commit", "name": name_from_text(result), "message": result})

    def run(self):
        proc = subprocess.Popen(self.argv(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, preexec_fn=die_with_parent)

        def on_term(signum, frame):
            self.term_requested = True
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)

        signal.signal(signal.SIGTERM, on_term)
        signal.signal(signal.SIGINT, on_term)

        def safety_net():
            self.term_requested = True
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)

        timer = threading.Timer(self.args.max_seconds, safety_net)
        timer.daemon = True
        timer.start()
        for raw in proc.stdout:
            self.handle(raw.decode("utf-8", "replace").rstrip("\r\n"))
        rc = proc.wait()
        timer.cancel()
        if self.fatal is not None:
            emit(self.fatal)
            return 3
        if rc != 0 and not self.term_requested:
            emit({"event": "error", "name": name_from_text(self.last_error or ""),
                  "message": "kcat exited with code %d%s" % (rc, ": " + self.last_error if self.last_error else "")})
            return 1
        emit({"event": "closed"})
        return 0


def consume(args):
    return KcatConsumer(args).run()


# ---------------------------------------------------------------------------------------------
# transact / read
#
# kcat -P with transactional.id: init_transactions() and begin_transaction() at start, every input
# line produced in that one transaction, commit_transaction() at the end of the input ("%
# Transaction successfully committed"), or abort_transaction() when it gets SIGTERM/SIGINT
# ("Aborting transaction due to termination signal"). It writes to one partition (-p), so each
# partition's records are one transaction of their own: the log is the same as with one
# transaction over the partitions (each partition gets its records and one marker).
#
# To abort, the records must have been produced first, with the input still open: kcat reads its
# input with fread() through a stdio buffer (4096 bytes on a pipe) and produces nothing before the
# buffer is full or the input ends. So the lines are padded with empty lines (which kcat skips) to
# exactly 4096 bytes, the app waits until a read_uncommitted kcat sees them in the partition, then
# sends SIGTERM and closes the input.

STDIO_BUFFER = 4096


def kcat_producer_argv(args, partition):
    return [KCAT, "-b", args.bootstrap] + security_x(args) + ["-P", "-t", args.topic, "-p", str(partition), "-K", "\\t",
            "-X", "client.id=matrix-kcat-txn-producer",
            "-X", "transactional.id=%s" % args.transactional_id,
            "-X", "message.timeout.ms=30000", "-X", "linger.ms=5"]


def kcat_error(text, during, partition):
    lines = [l for l in text.splitlines() if "ERROR" in l or "Delivery failed" in l]
    message = lines[0] if lines else text.strip().splitlines()[-1] if text.strip() else "kcat failed"
    return {"event": "error", "name": name_from_text(message), "message": message, "during": during,
            "partition": partition}


def keys_in_partition(args, partition):
    r = subprocess.run([KCAT, "-b", args.bootstrap] + security_x(args) + ["-C", "-t", args.topic, "-p", str(partition), "-o", "beginning",
                        "-e", "-q", "-X", "isolation.level=read_uncommitted", "-f", "%k\\n"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60, preexec_fn=die_with_parent)
    return set(r.stdout.decode("utf-8", "replace").split())


def transact(args):
    def by_partition(first, count):
        out = {}
        for i in range(first, first + count):
            out.setdefault(i % args.partitions, []).append(i)
        return out

    for partition, ids in sorted(by_partition(args.start, args.commit).items()):
        data = "".join("k%d\tv%d\n" % (i, i) for i in ids)
        r = subprocess.run(kcat_producer_argv(args, partition), input=data.encode(), stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=120, preexec_fn=die_with_parent)
        err = r.stderr.decode("utf-8", "replace")
        sys.stderr.write(err)
        if r.returncode != 0 or "Transaction successfully committed" not in err:
            emit(kcat_error(err, "commit", partition))
            return 1
    emit({"event": "committed", "count": args.commit})

    for partition, ids in sorted(by_partition(args.start + args.commit, args.abort).items()):
        data = "".join("k%d\tv%d\n" % (i, i) for i in ids)
        if len(data) > STDIO_BUFFER:
            emit({"event": "error", "name": None, "message": "too many records to abort with kcat", "during": "send"})
            return 1
        proc = subprocess.Popen(kcat_producer_argv(args, partition), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, preexec_fn=die_with_parent)
        try:
            proc.stdin.write((data + "\n" * (STDIO_BUFFER - len(data))).encode())
            proc.stdin.flush()
            wanted = set("k%d" % i for i in ids)
            deadline = time.time() + 60
            while not wanted <= keys_in_partition(args, partition):
                if proc.poll() is not None or time.time() > deadline:
                    break
                time.sleep(0.1)
            proc.send_signal(signal.SIGTERM)
            proc.stdin.close()
            err = proc.stderr.read()
            proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
        err = err.decode("utf-8", "replace")
        sys.stderr.write(err)
        if proc.returncode != 0 or "Aborting transaction due to termination signal" not in err:
            emit(kcat_error(err, "abort", partition))
            return 1
    emit({"event": "aborted", "count": args.abort})
    emit({"event": "transacted"})
    return 0


def read(args):
    argv = [KCAT, "-b", args.bootstrap] + security_x(args) + ["-C", "-t", args.topic, "-o", "beginning", "-e", "-J", "-q",
            "-X", "client.id=matrix-kcat-reader", "-X", "isolation.level=%s" % args.isolation]
    try:
        r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=args.max_seconds,
                           preexec_fn=die_with_parent)
    except subprocess.TimeoutExpired:
        emit({"event": "read", "complete": False})
        return 0
    sys.stderr.write(r.stderr.decode("utf-8", "replace"))
    for line in r.stdout.decode("utf-8", "replace").splitlines():
        try:
            m = json.loads(line)
        except ValueError:
            continue
        emit({"event": "message", "partition": m["partition"], "offset": m["offset"], "key": m.get("key"),
              "value": m.get("payload")})
    emit({"event": "read", "complete": r.returncode == 0})
    return 0


# ---------------------------------------------------------------------------------------------
# describe / remove


def describe(args):
    emit({"event": "unsupported", "role": "describe", "why": "kcat has no consumer-group admin commands"})
    return 2


def remove(args):
    emit({"event": "unsupported", "role": "remove", "why": "kcat cannot remove group members"})
    return 2


def main():
    return run({"produce": produce, "consume": consume, "describe": describe, "remove": remove,
                "transact": transact, "read": read})


if __name__ == "__main__":
    sys.exit(main())
