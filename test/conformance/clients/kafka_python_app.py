#!/usr/bin/python3
# The client-matrix app (test/conformance/clients/PROTOCOL.md) for kafka-python (Debian's
# python3-kafka 2.0.2).
#
#   kafka_python_app.py produce  --bootstrap B --topic T --from I --count N [--partitions P]
#   kafka_python_app.py consume  --bootstrap B --topic T --group G --client-id C [--instance ID]
#                                [--session-timeout-ms S] [--max-seconds M]
#       --instance: unsupported (exit 2): kafka-python 2.0.2 has no static membership (KIP-345).
#   kafka_python_app.py describe --bootstrap B --group G
#   kafka_python_app.py remove   --bootstrap B --group G --instance ID   (unsupported: exit 2)
#   kafka_python_app.py transact | read   (unsupported: exit 2): kafka-python 2.0.2 has no
#       transactional producer (nor an idempotent one).
#
# One JSON object per line on stdout, flushed at once; kafka-python logs (WARNING and up) to
# stderr.
#
# kafka-python quirks seen in the events: its coordinator calls on_partitions_revoked before
# every join, the first one included, so a consumer starts with {"event":"revoked",
# "partitions":[]}; close() does not call the listener (no revoked line on SIGTERM), commits
# nothing (automatic commits off) and sends LeaveGroup.
import logging
import signal
import sys
import time

from kafka import KafkaConsumer, KafkaProducer
from kafka.consumer.subscription_state import ConsumerRebalanceListener
from kafka.structs import OffsetAndMetadata
import kafka.errors as Errors

from app_cli import emit, run, security  # the script's own directory


def connection(args):
    """bootstrap_servers and, with the security options (PROTOCOL.md), kafka-python's names for them
    (sasl_plain_username/password serve SCRAM too)."""
    kw = {"bootstrap_servers": args.bootstrap}
    sec = security(args)
    if sec is not None:
        kw.update(security_protocol=sec["protocol"], sasl_mechanism=sec["mechanism"],
                  sasl_plain_username=sec["username"], sasl_plain_password=sec["password"], ssl_cafile=sec["ca"])
    return kw


def error_obj(event, exc, **extra):
    """Broker errors are kafka.errors.BrokerResponseError subclasses whose `message` is Kafka's
    error name (UNKNOWN_MEMBER_ID, ...); anything else has no Kafka error name."""
    # (CommitFailedError, kafka-python's own after UNKNOWN_MEMBER_ID / ILLEGAL_GENERATION /
    # REBALANCE_IN_PROGRESS on a commit, carries no name either.)
    name = None
    if isinstance(exc, Errors.BrokerResponseError) and exc.message and exc.errno not in (None, -1):
        name = exc.message
    obj = {"event": event, "name": name, "message": "%s: %s" % (type(exc).__name__, exc)}
    obj.update(extra)
    return obj


# ---------------------------------------------------------------------------------------------
# produce


def produce(args):
    p = KafkaProducer(**connection(args), client_id="matrix-kafka-python-producer",
                      acks="all", linger_ms=5, retries=5, request_timeout_ms=30000, max_block_ms=30000)
    # kafka-python 2.0.2 has no idempotent producer: nothing to switch off.
    futures = []
    try:
        for i in range(args.start, args.start + args.count):
            futures.append(p.send(args.topic, key=("k%d" % i).encode(), value=("v%d" % i).encode(),
                                  partition=i % args.partitions))
        p.flush(60)
        for f in futures:
            f.get(timeout=60)
    except Exception as e:  # noqa: BLE001 - a failed send: error line, exit 1
        emit(error_obj("error", e))
        p.close(5)
        return 1
    p.close(10)
    emit({"event": "produced", "count": args.count})
    return 0


# ---------------------------------------------------------------------------------------------
# consume


class Listener(ConsumerRebalanceListener):
    def __init__(self, topic):
        self.topic = topic

    def parts(self, tps):
        return sorted(tp.partition for tp in tps if tp.topic == self.topic)

    def on_partitions_revoked(self, revoked):
        emit({"event": "revoked", "partitions": self.parts(revoked)})

    def on_partitions_assigned(self, assigned):
        emit({"event": "assigned", "partitions": self.parts(assigned)})


def consume(args):
    if args.instance:
        emit({"event": "unsupported", "role": "consume",
              "why": "kafka-python 2.0.2 has no static membership (group.instance.id)"})
        return 2
    stopping = [False]

    def on_term(signum, frame):
        stopping[0] = True

    signal.signal(signal.SIGTERM, on_term)
    session = args.session_timeout_ms
    c = KafkaConsumer(
        **connection(args),
        client_id=args.client_id,
        group_id=args.group,
        auto_offset_reset="earliest",
        enable_auto_commit=False,
        session_timeout_ms=session,
        heartbeat_interval_ms=max(1, session // 10),
        # kafka-python requires request_timeout_ms > session_timeout_ms (default 305000: fine)
        fetch_max_wait_ms=100,
        # default partition_assignment_strategy: (RangePartitionAssignor, RoundRobinPartitionAssignor),
        # eager; range is chosen when every member lists it first
    )
    c.subscribe([args.topic], listener=Listener(args.topic))
    emit({"event": "started"})
    deadline = time.time() + args.max_seconds
    while not stopping[0] and time.time() < deadline:
        try:
            batches = c.poll(timeout_ms=200)
        except Exception as e:  # noqa: BLE001 - report whatever the client raises and carry on
            emit(error_obj("error", e))
            time.sleep(0.1)
            continue
        if not batches:
            continue
        nexts = {}
        for tp, records in sorted(batches.items(), key=lambda kv: kv[0].partition):
            for r in records:
                emit({"event": "message", "partition": r.partition, "offset": r.offset,
                      "key": None if r.key is None else r.key.decode("utf-8", "replace"),
                      "value": None if r.value is None else r.value.decode("utf-8", "replace")})
                nexts[tp] = r.offset + 1
        if not nexts:
            continue
        try:
            c.commit({tp: OffsetAndMetadata(o, "") for tp, o in nexts.items()})
            emit({"event": "committed",
                  "offsets": {str(tp.partition): o for tp, o in sorted(nexts.items(), key=lambda kv: kv[0].partition)}})
        except Exception as e:  # noqa: BLE001 - e.g. CommitFailedError during a rebalance
            emit(error_obj("error", e, during="commit"))
    # close(): no commit (automatic commits are off), LeaveGroup for this dynamic member
    c.close()
    emit({"event": "closed"})
    return 0


# ---------------------------------------------------------------------------------------------
# describe / remove

STATES = {"stable": "Stable", "empty": "Empty", "preparingrebalance": "PreparingRebalance",
          "completingrebalance": "CompletingRebalance", "awaitingsync": "CompletingRebalance",
          "dead": "Dead"}


def assignment_partitions(assignment):
    """The member's partitions from DescribeGroups' member_assignment: kafka-python decodes it
    (ConsumerProtocolMemberAssignment) when the group's protocol type is "consumer"; an empty
    assignment stays b''."""
    if assignment is None or isinstance(assignment, (bytes, bytearray)):
        if not assignment:
            return []
        from kafka.coordinator.protocol import ConsumerProtocolMemberAssignment
        assignment = ConsumerProtocolMemberAssignment.decode(bytes(assignment))
    return sorted({tp.partition for tp in assignment.partitions()})


def describe(args):
    from kafka.admin import KafkaAdminClient
    admin = KafkaAdminClient(**connection(args), client_id="matrix-kafka-python-admin")
    try:
        groups = admin.describe_consumer_groups([args.group])
    finally:
        admin.close()
    g = groups[0]
    if g.error_code:
        err = Errors.for_code(g.error_code)
        emit({"event": "error", "name": err.message, "message": err.description})
        return 1
    members = []
    for m in g.members:
        members.append({"clientId": m.client_id,
                        # DescribeGroups v0-v3 (all kafka-python 2.0.2 speaks) carries no instance id;
                        # its members are dynamic anyway
                        "instanceId": None,
                        "partitions": assignment_partitions(m.member_assignment)})
    emit({"event": "group", "state": STATES.get((g.state or "").lower(), g.state),
          "protocolType": g.protocol_type, "protocol": g.protocol, "members": members})
    return 0


def remove(args):
    emit({"event": "unsupported", "role": "remove",
          "why": "kafka-python 2.0.2 cannot remove group members (no static membership, no RemoveMembers)"})
    return 2


def transact(args):
    emit({"event": "unsupported", "role": "transact",
          "why": "kafka-python 2.0.2 has no transactional producer (no transactional_id, no idempotence)"})
    return 2


def read(args):
    emit({"event": "unsupported", "role": "read",
          "why": "the transactions step needs a transactional producer, which kafka-python 2.0.2 lacks"})
    return 2


def main():
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    roles = {"produce": produce, "consume": consume, "describe": describe, "remove": remove,
             "transact": transact, "read": read}
    return run(roles, error_line=lambda e: error_obj("error", e))


if __name__ == "__main__":
    sys.exit(main())
