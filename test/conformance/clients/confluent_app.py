#!/usr/bin/python3
# The client-matrix app (test/conformance/clients/PROTOCOL.md) for librdkafka through
# python3-confluent-kafka: Debian's package is the 1.7.0 binding on librdkafka 2.0.2.
#
#   confluent_app.py produce  --bootstrap B --topic T --from I --count N [--partitions P]
#   confluent_app.py consume  --bootstrap B --topic T --group G --client-id C [--instance ID]
#                             [--session-timeout-ms S] [--max-seconds M]
#   confluent_app.py describe --bootstrap B --group G     (AdminClient.list_groups, see describe())
#   confluent_app.py remove   --bootstrap B --group G --instance ID   (unsupported: exit 2)
#   confluent_app.py transact --bootstrap B --topic T --from I --commit N --abort M --transactional-id X
#                             [--partitions P]
#   confluent_app.py read     --bootstrap B --topic T --until P:O,... [--isolation L] [--max-seconds S]
#
# One JSON object per line on stdout, flushed at once; librdkafka logs to stderr.
import signal
import sys
import time

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition

from app_cli import emit, run, security  # the script's own directory


def connection(args):
    """bootstrap.servers and, with the security options (PROTOCOL.md), librdkafka's own names for them."""
    conf = {"bootstrap.servers": args.bootstrap}
    sec = security(args)
    if sec is not None:
        conf.update({"security.protocol": sec["protocol"], "sasl.mechanisms": sec["mechanism"],
                     "sasl.username": sec["username"], "sasl.password": sec["password"],
                     "ssl.ca.location": sec["ca"]})
    return conf


def kafka_name(err):
    """The Kafka error name of a KafkaError, or None for librdkafka's own (local) errors, whose
    names start with an underscore (_TRANSPORT, _MSG_TIMED_OUT, ...)."""
    name = err.name()
    return None if name.startswith("_") else name


def error_obj(event, err, **extra):
    obj = {"event": event, "name": kafka_name(err), "message": err.str(), "code": err.code(),
           "clientName": err.name()}
    obj.update(extra)
    return obj


# ---------------------------------------------------------------------------------------------
# produce


def produce(args):
    conf = {
        **connection(args),
        "client.id": "matrix-confluent-producer",
        "acks": "all",
        "enable.idempotence": False,
        "linger.ms": 5,
        "message.timeout.ms": 30000,
    }
    errors = []
    acked = [0]

    def on_delivery(err, msg):
        if err is not None:
            errors.append(err)
        else:
            acked[0] += 1

    p = Producer(conf)
    try:
        for i in range(args.start, args.start + args.count):
            while True:
                try:
                    p.produce(args.topic, key=("k%d" % i).encode(), value=("v%d" % i).encode(),
                              partition=i % args.partitions, on_delivery=on_delivery)
                    break
                except BufferError:  # local queue full: serve delivery reports, then retry
                    p.poll(0.1)
            p.poll(0)
        left = p.flush(60)
    except KafkaException as e:
        emit(error_obj("error", e.args[0]))
        return 1
    if errors:
        emit(error_obj("error", errors[0], failed=len(errors)))
        return 1
    if left or acked[0] != args.count:
        emit({"event": "error", "name": None,
              "message": "%d record(s) not acknowledged after flush" % (args.count - acked[0])})
        return 1
    emit({"event": "produced", "count": args.count})
    return 0


# ---------------------------------------------------------------------------------------------
# consume

# librdkafka 2.0.2 raises a broker's FENCED_INSTANCE_ID as a fatal error and reports it as the
# poll/consume error _FATAL, whose text names the broker error ("Fatal error: Broker: Static
# consumer fenced by other consumer with same group.instance.id: ..."). The underlying code
# (rd_kafka_fatal_error()) is not exposed by the 1.7.0 binding, and later calls (commit())
# fail with _FATAL too, so the Kafka name is recovered from the text: librdkafka writes a broker
# error as "Broker: <description>", and KafkaError(code).str() gives every code's description.
from librdkafka_errors import name_from_text  # noqa: E402 - the script's own directory


def fatal_obj(errs):
    """The fatal line for the first of errs whose text names a Kafka error (a commit that fails
    after the fatal error only says "Local: Fatal error"), else for the first."""
    named = [e for e in errs if kafka_name(e) or name_from_text(e.str())]
    err = (named or errs)[0]
    return {"event": "fatal", "name": kafka_name(err) or name_from_text(err.str()), "message": err.str(),
            "code": err.code(), "clientName": err.name()}


def consume(args):
    stopping = [False]

    def on_term(signum, frame):
        stopping[0] = True

    signal.signal(signal.SIGTERM, on_term)

    fatal_seen = []

    def on_error(err):
        # A fatal error may come through error_cb as well as through consume(): it ends the loop.
        if err.fatal() or err.code() == KafkaError._FATAL:
            fatal_seen.append(err)
        else:
            emit(error_obj("error", err, source="error_cb"))

    session = args.session_timeout_ms
    conf = {
        **connection(args),
        "client.id": args.client_id,
        "group.id": args.group,
        "session.timeout.ms": session,
        "heartbeat.interval.ms": max(1, session // 10),
        "partition.assignment.strategy": "range",
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
        "fetch.wait.max.ms": 100,
        "error_cb": on_error,
    }
    if args.instance:
        conf["group.instance.id"] = args.instance

    def parts(ps):
        return sorted(tp.partition for tp in ps if tp.topic == args.topic)

    def on_assign(consumer, ps):
        emit({"event": "assigned", "partitions": parts(ps)})

    def on_revoke(consumer, ps):
        emit({"event": "revoked", "partitions": parts(ps)})

    def on_lost(consumer, ps):
        # librdkafka: the assignment was lost (session timed out, fenced, ...), not revoked by a
        # rebalance; the contract has no separate event for it.
        emit({"event": "revoked", "partitions": parts(ps), "lost": True})

    c = Consumer(conf)
    c.subscribe([args.topic], on_assign=on_assign, on_revoke=on_revoke, on_lost=on_lost)
    emit({"event": "started"})
    deadline = time.time() + args.max_seconds
    code = 0
    while not stopping[0] and time.time() < deadline:
        try:
            msgs = c.consume(num_messages=500, timeout=0.2)
        except KafkaException as e:
            err = e.args[0]
            if err.fatal() or err.code() == KafkaError._FATAL:
                emit(fatal_obj([err] + fatal_seen))
                code = 3
                break
            emit(error_obj("error", err, source="consume"))
            continue
        fatal = None
        nexts = {}
        for m in msgs:
            err = m.error()
            if err is not None:
                if err.code() == KafkaError._PARTITION_EOF:
                    continue
                if err.fatal() or err.code() == KafkaError._FATAL:
                    fatal = err
                    break
                emit(error_obj("error", err, source="consume"))
                continue
            emit({"event": "message", "partition": m.partition(), "offset": m.offset(),
                  "key": None if m.key() is None else m.key().decode("utf-8", "replace"),
                  "value": None if m.value() is None else m.value().decode("utf-8", "replace")})
            nexts[m.partition()] = m.offset() + 1
        if nexts and fatal is None:
            offsets = [TopicPartition(args.topic, p, o) for p, o in sorted(nexts.items())]
            try:
                result = c.commit(offsets=offsets, asynchronous=False)
                failed = [tp for tp in (result or []) if tp.error is not None]
                for tp in failed:
                    emit(error_obj("error", tp.error, during="commit", partition=tp.partition))
                if not failed:
                    emit({"event": "committed", "offsets": {str(p): o for p, o in sorted(nexts.items())}})
            except KafkaException as e:
                err = e.args[0]
                if err.fatal() or err.code() == KafkaError._FATAL:
                    fatal = err
                else:
                    emit(error_obj("error", err, during="commit"))
        if fatal is None and fatal_seen:
            fatal = fatal_seen[0]
        if fatal is not None:
            emit(fatal_obj([fatal] + fatal_seen))
            code = 3
            break
    try:
        # A static member does not leave the group on close (librdkafka sends no LeaveGroup when
        # group.instance.id is set); a dynamic one does.
        c.close()
    except Exception as e:  # noqa: BLE001 - a fenced consumer's close may raise the fatal error again
        sys.stderr.write("close: %r\n" % (e,))
    if code == 0:
        emit({"event": "closed"})
    return code


# ---------------------------------------------------------------------------------------------
# transact / read


def transact(args):
    conf = {
        **connection(args),
        "client.id": "matrix-confluent-txn-producer",
        "transactional.id": args.transactional_id,
        "linger.ms": 5,
        "message.timeout.ms": 30000,
    }
    errors = []

    def on_delivery(err, msg):
        if err is not None:
            errors.append(err)

    p = Producer(conf)
    during = ["init"]

    def send(first, count):
        for i in range(first, first + count):
            p.produce(args.topic, key=("k%d" % i).encode(), value=("v%d" % i).encode(),
                      partition=i % args.partitions, on_delivery=on_delivery)
        # Every record acknowledged (abort_transaction() would purge what is still queued).
        if p.flush(60) != 0 or errors:
            raise KafkaException(errors[0] if errors else KafkaError(KafkaError._MSG_TIMED_OUT))

    try:
        p.init_transactions(30)
        during[0] = "begin"
        p.begin_transaction()
        during[0] = "send"
        send(args.start, args.commit)
        during[0] = "commit"
        p.commit_transaction(30)
        emit({"event": "committed", "count": args.commit})
        during[0] = "begin"
        p.begin_transaction()
        during[0] = "send"
        send(args.start + args.commit, args.abort)
        during[0] = "abort"
        p.abort_transaction(30)
        emit({"event": "aborted", "count": args.abort})
    except KafkaException as e:
        emit(error_obj("error", e.args[0], during=during[0]))
        return 1
    emit({"event": "transacted"})
    return 0


def read(args):
    """assign()s every partition of --until from the beginning (no group), and reads until each has
    reported its end (enable.partition.eof) at or past the offset --until gives it."""
    conf = {
        **connection(args),
        "client.id": "matrix-confluent-reader",
        "group.id": "matrix-confluent-reader",  # required by the client; assign() never joins it
        "enable.auto.commit": False,
        "enable.partition.eof": True,
        "isolation.level": args.isolation,
        "fetch.wait.max.ms": 100,
    }
    c = Consumer(conf)
    c.assign([TopicPartition(args.topic, p, 0) for p in sorted(args.until)])
    done = set(p for p, o in args.until.items() if o == 0)
    deadline = time.time() + args.max_seconds
    while len(done) < len(args.until) and time.time() < deadline:
        m = c.poll(0.2)
        if m is None:
            continue
        err = m.error()
        if err is not None:
            if err.code() == KafkaError._PARTITION_EOF:
                if m.offset() >= args.until.get(m.partition(), 0):
                    done.add(m.partition())
            else:
                emit(error_obj("error", err, source="poll"))
            continue
        emit({"event": "message", "partition": m.partition(), "offset": m.offset(),
              "key": None if m.key() is None else m.key().decode("utf-8", "replace"),
              "value": None if m.value() is None else m.value().decode("utf-8", "replace")})
    c.close()
    emit({"event": "read", "complete": len(done) == len(args.until)})
    return 0


# ---------------------------------------------------------------------------------------------
# describe / remove


def assignment_topics(data):
    """A ConsumerProtocol Assignment (int16 version, [topic string, [int32 partition]], user data)
    as {topic: sorted partitions}; {} for an empty or unreadable assignment."""
    import struct
    out = {}
    try:
        pos = 2  # version
        (ntopics,) = struct.unpack_from(">i", data, pos)
        pos += 4
        for _ in range(max(0, ntopics)):
            (nlen,) = struct.unpack_from(">h", data, pos)
            pos += 2
            name = data[pos:pos + nlen].decode("utf-8", "replace")
            pos += nlen
            (nparts,) = struct.unpack_from(">i", data, pos)
            pos += 4
            out[name] = sorted(struct.unpack_from(">%di" % max(0, nparts), data, pos))
            pos += 4 * max(0, nparts)
    except (struct.error, TypeError):
        return {}
    return out


def describe(args):
    # python3-confluent-kafka 1.7.0 has no AdminClient.describe_consumer_groups (added in 2.0),
    # but AdminClient.list_groups(group=G) describes one group: librdkafka's rd_kafka_list_groups
    # sends ListGroups and then DescribeGroups v0 to the coordinator. DescribeGroups v0 carries no
    # group.instance.id, so "instanceId" is null for every member (as for kafka-python), and each
    # member's assignment comes as the raw ConsumerProtocol bytes, decoded here. The matrix's
    # group consumes one topic, the only one in the assignments.
    from confluent_kafka.admin import AdminClient
    admin = AdminClient({**connection(args), "client.id": "matrix-confluent-admin"})
    groups = admin.list_groups(group=args.group, timeout=30)
    g = next((x for x in groups if x.id == args.group), None)
    if g is None:
        emit({"event": "error", "name": None, "message": "list_groups returned no group %s" % args.group})
        return 1
    if g.error is not None:
        emit(error_obj("error", g.error))
        return 1
    members = [{"clientId": m.client_id, "instanceId": None,
                "partitions": sorted(p for ps in assignment_topics(m.assignment).values() for p in ps)}
               for m in g.members]
    emit({"event": "group", "state": g.state, "protocolType": g.protocol_type, "protocol": g.protocol,
          "members": members})
    return 0


def remove(args):
    emit({"event": "unsupported", "role": "remove",
          "why": "python3-confluent-kafka 1.7.0 / librdkafka 2.0.2 cannot remove group members by instance id"})
    return 2


def main():
    return run({"produce": produce, "consume": consume, "describe": describe, "remove": remove,
                "transact": transact, "read": read})


if __name__ == "__main__":
    sys.exit(main())
