#!/usr/bin/python3
# kafka-python (python3-kafka 2.0.2) as a real client of kmock, for
# test/broker/clients/kafka-python.test.ts. Every observation is one JSON line on stdout.
#
#   kafka_python_client.py produce --bootstrap B --topic T --count N [--prefix P] [--partitions K]
#                              [--api-version 0.10] [--compression gzip]
#       records P0..P(N-1), record i to partition i % K (K defaults to 1: partition 0), acks=all;
#       {"event":"sent","partition":p,"offset":o,"value":v,"timestamp":t} per record, then
#       {"event":"done","sent":n}
#   kafka_python_client.py group --bootstrap B --topic T --group G [--name NAME] [--max-seconds S]
#                                [--session-timeout MS] [--heartbeat-interval MS] [--max-poll-interval MS]
#       a KafkaConsumer in group G, subscribed to T with a ConsumerRebalanceListener, reading from the
#       earliest offset, committing synchronously (commit()) after each non-empty poll, until SIGTERM
#       (then close(), which commits nothing more and sends LeaveGroup) or max-seconds:
#       {"event":"started"}, {"event":"assign"|"revoke","partitions":[..]},
#       {"event":"message","partition":p,"offset":o,"value":v}, {"event":"committed","offsets":{"p":o}},
#       {"event":"error","str":s}, {"event":"closed"}
#
#   --api-version X.Y[.Z] (both commands) pins kafka-python to that broker version instead of
#   asking ApiVersions, which picks its request versions: 0.10 means Produce v2 (magic 1 message
#   sets) and Fetch v2, 0.10.1 Fetch v3, 0.9 Produce v1 (magic 0) and Fetch v1.
import argparse
import json
import logging
import signal
import sys
import time

from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.consumer.subscription_state import ConsumerRebalanceListener


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def api_version(args):
    return tuple(int(x) for x in args.api_version.split(".")) if args.api_version else None


def produce(args):
    p = KafkaProducer(bootstrap_servers=args.bootstrap, client_id="kmock-kafka-python-producer", acks="all",
                      request_timeout_ms=10000, max_block_ms=20000, retries=5, api_version=api_version(args),
                      compression_type=args.compression)
    futures = []
    for i in range(args.count):
        value = ("%s%d" % (args.prefix, i)).encode()
        futures.append((value, p.send(args.topic, value=value, key=("k%d" % i).encode(),
                                      partition=i % args.partitions)))
    p.flush(20)
    sent = 0
    for value, f in futures:
        md = f.get(timeout=20)
        sent += 1
        emit({"event": "sent", "partition": md.partition, "offset": md.offset, "value": value.decode(),
              "timestamp": md.timestamp})
    p.close(10)
    emit({"event": "done", "sent": sent})
    return 0


class Listener(ConsumerRebalanceListener):
    def on_partitions_revoked(self, revoked):
        emit({"event": "revoke", "partitions": sorted(tp.partition for tp in revoked)})

    def on_partitions_assigned(self, assigned):
        emit({"event": "assign", "partitions": sorted(tp.partition for tp in assigned)})


def group(args):
    stopping = [False]

    def on_term(signum, frame):
        stopping[0] = True

    signal.signal(signal.SIGTERM, on_term)
    c = KafkaConsumer(
        bootstrap_servers=args.bootstrap,
        client_id="kmock-kafka-python-" + args.name,
        group_id=args.group,
        auto_offset_reset="earliest",
        enable_auto_commit=False,
        session_timeout_ms=args.session_timeout,
        heartbeat_interval_ms=args.heartbeat_interval,
        max_poll_interval_ms=args.max_poll_interval,
        request_timeout_ms=max(args.session_timeout, args.max_poll_interval) + 5000,
        fetch_max_wait_ms=100,
        metadata_max_age_ms=5000,
        api_version=api_version(args),
    )
    c.subscribe([args.topic], listener=Listener())
    emit({"event": "started", "name": args.name})
    deadline = time.time() + args.max_seconds
    while not stopping[0] and time.time() < deadline:
        try:
            batches = c.poll(timeout_ms=100)
        except Exception as e:  # noqa: BLE001 - report anything the client raises
            emit({"event": "error", "str": repr(e)})
            time.sleep(0.1)
            continue
        if not batches:
            continue
        for tp, records in sorted(batches.items(), key=lambda kv: kv[0].partition):
            for r in records:
                emit({"event": "message", "partition": r.partition, "offset": r.offset,
                      "value": None if r.value is None else r.value.decode(),
                      "key": None if r.key is None else r.key.decode(), "timestamp": r.timestamp})
        try:
            c.commit()
            emit({"event": "committed",
                  "offsets": {str(tp.partition): c.committed(tp) for tp in sorted(batches, key=lambda t: t.partition)}})
        except Exception as e:  # noqa: BLE001 - e.g. CommitFailedError during a rebalance
            emit({"event": "error", "str": "commit: " + repr(e)})
    c.close()
    emit({"event": "closed"})
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--debug", action="store_true")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("produce")
    p.add_argument("--bootstrap", required=True)
    p.add_argument("--topic", required=True)
    p.add_argument("--count", type=int, default=10)
    p.add_argument("--prefix", default="m")
    p.add_argument("--partitions", type=int, default=1)
    p.add_argument("--compression", default=None)
    p.add_argument("--api-version", default=None)
    g = sub.add_parser("group")
    g.add_argument("--bootstrap", required=True)
    g.add_argument("--topic", required=True)
    g.add_argument("--group", required=True)
    g.add_argument("--name", default="consumer")
    g.add_argument("--session-timeout", type=int, default=6000)
    g.add_argument("--heartbeat-interval", type=int, default=300)
    g.add_argument("--max-poll-interval", type=int, default=10000)
    g.add_argument("--max-seconds", type=float, default=90)
    g.add_argument("--api-version", default=None)
    args = ap.parse_args()
    logging.basicConfig(stream=sys.stderr, level=logging.DEBUG if args.debug else logging.WARNING)
    return {"produce": produce, "group": group}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
