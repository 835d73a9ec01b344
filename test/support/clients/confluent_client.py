#!/usr/bin/python3
# librdkafka (through python3-confluent-kafka) as a real client of kmock, for
# test/broker/clients/librdkafka-static.test.ts. Every observation is one JSON line on stdout
# (flushed at once); librdkafka's own log lines go to stderr.
#
#   confluent_client.py produce  --bootstrap B --topic T --count N [--prefix P] [--partition P] [--acks A]
#       {"event":"delivered","partition":p,"offset":o,"value":v} per record, then {"event":"done","delivered":n,"errors":[..]}
#   confluent_client.py read     --bootstrap B --topic T --partitions N --expect K [--timeout S]
#       assign()s partitions 0..N-1 from the beginning (no group); {"event":"message",...} per record, then {"event":"done"}
#   confluent_client.py group    --bootstrap B --topic T --group G [--instance-id I] [--session-timeout MS]
#                                [--strategy range|roundrobin|cooperative-sticky] [--max-seconds S] [--debug CTX]
#       a subscribed group consumer polling until SIGTERM (then close()), a fatal error, or max-seconds:
#       {"event":"started"}, {"event":"assign"|"revoke"|"lost","partitions":[..]},
#       {"event":"message","partition":p,"offset":o,"value":v},
#       {"event":"error","source":"error_cb"|"poll","code":c,"name":n,"fatal":bool,"str":s},
#       {"event":"fatal",...} (then exits 3), {"event":"closed"}
import argparse
import json
import signal
import sys
import time

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def err_json(err, source):
    return {
        "event": "error",
        "source": source,
        "code": err.code(),
        "name": err.name(),
        "fatal": bool(err.fatal()),
        "retriable": bool(err.retriable()),
        "str": err.str(),
    }


def base_conf(args):
    conf = {
        "bootstrap.servers": args.bootstrap,
        "client.id": "kmock-confluent-" + (getattr(args, "instance_id", None) or args.cmd),
        "socket.timeout.ms": 10000,
        "broker.address.family": "v4",
    }
    if getattr(args, "debug", None):
        conf["debug"] = args.debug
    return conf


def produce(args):
    conf = base_conf(args)
    conf["acks"] = args.acks
    conf["linger.ms"] = 5
    conf["message.timeout.ms"] = 15000
    errors = []
    delivered = [0]

    def on_delivery(err, msg):
        if err is not None:
            errors.append(err.str())
            return
        delivered[0] += 1
        emit({"event": "delivered", "partition": msg.partition(), "offset": msg.offset(),
              "value": msg.value().decode()})

    p = Producer(conf)
    for i in range(args.count):
        kw = {}
        if args.partition is not None:
            kw["partition"] = args.partition
        p.produce(args.topic, value=("%s%d" % (args.prefix, i)).encode(), key=("k%d" % i).encode(),
                  on_delivery=on_delivery, **kw)
        p.poll(0)
    left = p.flush(20)
    emit({"event": "done", "delivered": delivered[0], "errors": errors, "unflushed": left})
    return 0 if left == 0 and not errors else 1


def read(args):
    conf = base_conf(args)
    conf["group.id"] = "kmock-unused-reader"  # required by the client; assign() never joins it
    conf["enable.auto.commit"] = False
    conf["fetch.wait.max.ms"] = 100
    c = Consumer(conf)
    c.assign([TopicPartition(args.topic, p, 0) for p in range(args.partitions)])
    got = 0
    deadline = time.time() + args.timeout
    while got < args.expect and time.time() < deadline:
        m = c.poll(0.2)
        if m is None:
            continue
        if m.error():
            emit(err_json(m.error(), "poll"))
            continue
        got += 1
        emit({"event": "message", "partition": m.partition(), "offset": m.offset(),
              "key": None if m.key() is None else m.key().decode(),
              "value": None if m.value() is None else m.value().decode()})
    c.close()
    emit({"event": "done", "count": got})
    return 0


def group(args):
    conf = base_conf(args)
    conf.update({
        "group.id": args.group,
        "session.timeout.ms": args.session_timeout,
        "heartbeat.interval.ms": args.heartbeat_interval,
        "partition.assignment.strategy": args.strategy,
        "auto.offset.reset": "earliest",
        "enable.auto.commit": True,
        "auto.commit.interval.ms": 500,
        "fetch.wait.max.ms": 100,
        "topic.metadata.refresh.interval.ms": 2000,
        "error_cb": lambda err: emit(err_json(err, "error_cb")),
    })
    if args.instance_id:
        conf["group.instance.id"] = args.instance_id

    stopping = [False]

    def on_term(signum, frame):
        stopping[0] = True

    signal.signal(signal.SIGTERM, on_term)

    def parts(ps):
        return sorted(tp.partition for tp in ps)

    def on_assign(consumer, ps):
        emit({"event": "assign", "partitions": parts(ps)})

    def on_revoke(consumer, ps):
        emit({"event": "revoke", "partitions": parts(ps)})

    def on_lost(consumer, ps):
        emit({"event": "lost", "partitions": parts(ps)})

    c = Consumer(conf)
    c.subscribe([args.topic], on_assign=on_assign, on_revoke=on_revoke, on_lost=on_lost)
    emit({"event": "started", "instance": args.instance_id})
    deadline = time.time() + args.max_seconds
    code = 0
    while not stopping[0] and time.time() < deadline:
        m = c.poll(0.1)
        if m is None:
            continue
        err = m.error()
        if err:
            emit(err_json(err, "poll"))
            # librdkafka 2.0.2 delivers a fatal consumer error as a poll error with code _FATAL
            # (the KafkaError's fatal() flag is not set on it); the underlying error (_FENCED for
            # FENCED_INSTANCE_ID) is what rd_kafka_fatal_error() returns, and every later call
            # fails with it.
            if err.fatal() or err.code() == KafkaError._FATAL:
                fatal = {"event": "fatal", "code": err.code(), "name": err.name(), "str": err.str()}
                try:
                    c.commit(asynchronous=False)
                except KafkaException as e:
                    under = e.args[0]
                    fatal.update({"underlyingCode": under.code(), "underlyingName": under.name(),
                                  "underlyingFatal": bool(under.fatal()), "underlyingStr": under.str()})
                emit(fatal)
                code = 3
                break
            continue
        emit({"event": "message", "partition": m.partition(), "offset": m.offset(),
              "value": None if m.value() is None else m.value().decode()})
    try:
        c.close()
    except Exception as e:  # a fenced consumer's close may itself report the fatal error
        emit({"event": "close-error", "str": str(e)})
    emit({"event": "closed"})
    return code


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("produce")
    p.add_argument("--bootstrap", required=True)
    p.add_argument("--topic", required=True)
    p.add_argument("--count", type=int, default=10)
    p.add_argument("--prefix", default="m")
    p.add_argument("--partition", type=int)
    p.add_argument("--acks", default="all")
    p.add_argument("--debug")
    r = sub.add_parser("read")
    r.add_argument("--bootstrap", required=True)
    r.add_argument("--topic", required=True)
    r.add_argument("--partitions", type=int, default=1)
    r.add_argument("--expect", type=int, required=True)
    r.add_argument("--timeout", type=float, default=20)
    r.add_argument("--debug")
    g = sub.add_parser("group")
    g.add_argument("--bootstrap", required=True)
    g.add_argument("--topic", required=True)
    g.add_argument("--group", required=True)
    g.add_argument("--instance-id")
    g.add_argument("--session-timeout", type=int, default=10000)
    g.add_argument("--heartbeat-interval", type=int, default=500)
    g.add_argument("--strategy", default="range")
    g.add_argument("--max-seconds", type=float, default=120)
    g.add_argument("--debug")
    args = ap.parse_args()
    return {"produce": produce, "read": read, "group": group}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
