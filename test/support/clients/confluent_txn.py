#!/usr/bin/python3
# librdkafka's transactional producer and read_committed consumer (through python3-confluent-kafka
# 1.7.0 on librdkafka 2.0.2), for test/broker/clients/librdkafka-transactions.test.ts. Every
# observation is one JSON line on stdout (flushed at once); librdkafka's own log goes to stderr.
#
#   confluent_txn.py produce --bootstrap B --topic T --transactional-id X
#                            --txn commit:0:a,b --txn abort:1:c [...] [--gate DIR] [--timeout-ms MS]
#       One producer: init_transactions(), then for each --txn END:PARTITION:V1,V2,... in order:
#       begin_transaction(), produce the values (key = value) to PARTITION, flush(), and END
#       (commit_transaction() or abort_transaction()). With --gate, before ending transaction i
#       (from 0) it prints {"event":"open","txn":i} and waits for the file DIR/i to exist.
#       {"event":"init"}, {"event":"delivered","partition":p,"offset":o,"value":v} per record,
#       {"event":"committed"|"aborted","txn":i}, then {"event":"done"}, exit 0. A call that fails:
#       {"event":"error","during":"init"|"begin"|"produce"|"flush"|"commit"|"abort","name":N,
#        "code":c,"fatal":b,"retriable":b,"abortable":b,"message":s}, exit 1.
#   confluent_txn.py read --bootstrap B --topic T --partitions N [--isolation read_committed|read_uncommitted]
#                         [--timeout S]
#       assign()s partitions 0..N-1 from the beginning (no group) with enable.partition.eof and
#       reads until every partition has reported its end: {"event":"message",...} per record,
#       {"event":"eof","partition":p,"offset":o} per partition end (o: the offset it reached), then
#       {"event":"done","complete":true|false} (false: --timeout passed first).
import argparse
import json
import os
import sys
import time

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def kafka_name(err):
    """The Kafka error name of a KafkaError; librdkafka's own (local) errors start with '_'."""
    return err.name()


def error_line(during, err):
    return {
        "event": "error",
        "during": during,
        "name": kafka_name(err),
        "code": err.code(),
        "fatal": bool(err.fatal()),
        "retriable": bool(err.retriable()),
        "abortable": bool(err.txn_requires_abort()),
        "message": err.str(),
    }


def produce(args):
    timeout = args.timeout_ms / 1000.0
    conf = {
        "bootstrap.servers": args.bootstrap,
        "client.id": "kmock-confluent-txn",
        "transactional.id": args.transactional_id,
        "transaction.timeout.ms": args.transaction_timeout_ms,
        "linger.ms": 5,
        "socket.timeout.ms": 10000,
        "broker.address.family": "v4",
    }
    if args.debug:
        conf["debug"] = args.debug
    errors = []
    p = Producer(conf)

    def on_delivery(err, msg):
        if err is not None:
            errors.append(err)
            emit({"event": "delivery-failed", "name": kafka_name(err), "message": err.str()})
            return
        emit({"event": "delivered", "partition": msg.partition(), "offset": msg.offset(),
              "value": msg.value().decode()})

    def call(during, f):
        try:
            f()
            return True
        except KafkaException as e:
            emit(error_line(during, e.args[0]))
            return False

    if not call("init", lambda: p.init_transactions(timeout)):
        return 1
    emit({"event": "init"})
    for i, spec in enumerate(args.txn):
        end, partition, values = spec.split(":", 2)
        if not call("begin", p.begin_transaction):
            return 1
        for v in values.split(","):
            try:
                p.produce(args.topic, key=v.encode(), value=v.encode(), partition=int(partition),
                          on_delivery=on_delivery)
            except KafkaException as e:
                emit(error_line("produce", e.args[0]))
                return 1
        if p.flush(timeout) != 0 or errors:
            emit({"event": "error", "during": "flush", "name": None, "message": "%d undelivered" % len(errors)})
            return 1
        if args.gate:
            emit({"event": "open", "txn": i})
            gate = os.path.join(args.gate, str(i))
            deadline = time.time() + timeout
            while not os.path.exists(gate):
                if time.time() > deadline:
                    emit({"event": "error", "during": "gate", "name": None, "message": "no %s" % gate})
                    return 1
                p.poll(0.02)
        if end == "commit":
            if not call("commit", lambda: p.commit_transaction(timeout)):
                return 1
            emit({"event": "committed", "txn": i})
        else:
            if not call("abort", lambda: p.abort_transaction(timeout)):
                return 1
            emit({"event": "aborted", "txn": i})
    emit({"event": "done"})
    return 0


def read(args):
    conf = {
        "bootstrap.servers": args.bootstrap,
        "client.id": "kmock-confluent-txn-reader",
        "group.id": "kmock-unused-reader",  # required by the client; assign() never joins it
        "enable.auto.commit": False,
        "enable.partition.eof": True,
        "isolation.level": args.isolation,
        "fetch.wait.max.ms": 100,
        "broker.address.family": "v4",
    }
    c = Consumer(conf)
    c.assign([TopicPartition(args.topic, p, 0) for p in range(args.partitions)])
    at_end = {}
    deadline = time.time() + args.timeout
    while len(at_end) < args.partitions and time.time() < deadline:
        m = c.poll(0.2)
        if m is None:
            continue
        err = m.error()
        if err is not None:
            if err.code() == KafkaError._PARTITION_EOF:
                at_end[m.partition()] = m.offset()
                emit({"event": "eof", "partition": m.partition(), "offset": m.offset()})
            else:
                emit(error_line("poll", err))
            continue
        at_end.pop(m.partition(), None)
        emit({"event": "message", "partition": m.partition(), "offset": m.offset(),
              "key": None if m.key() is None else m.key().decode(),
              "value": None if m.value() is None else m.value().decode()})
    c.close()
    emit({"event": "done", "complete": len(at_end) == args.partitions})
    return 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("produce")
    p.add_argument("--bootstrap", required=True)
    p.add_argument("--topic", required=True)
    p.add_argument("--transactional-id", required=True)
    p.add_argument("--txn", action="append", default=[])
    p.add_argument("--gate")
    p.add_argument("--timeout-ms", type=int, default=30000)
    p.add_argument("--transaction-timeout-ms", type=int, default=10000)
    p.add_argument("--debug")
    r = sub.add_parser("read")
    r.add_argument("--bootstrap", required=True)
    r.add_argument("--topic", required=True)
    r.add_argument("--partitions", type=int, default=1)
    r.add_argument("--isolation", default="read_committed")
    r.add_argument("--timeout", type=float, default=30)
    args = ap.parse_args()
    return {"produce": produce, "read": read}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
