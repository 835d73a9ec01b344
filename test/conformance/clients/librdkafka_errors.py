# Kafka error names from librdkafka's error texts, for the librdkafka apps (confluent_app.py,
# kcat_app.py). librdkafka writes a broker error as "Broker: <description>" (rd_kafka_err2str),
# not by name, and librdkafka 2.0.2 wraps a fenced member's errors in _FATAL, so the name is
# recovered from the text. The table comes from librdkafka itself through confluent_kafka when
# that is installed; a few common ones are built in for kcat without it.

FALLBACK_DESCRIPTIONS = {
    "Broker: Static consumer fenced by other consumer with same group.instance.id": "FENCED_INSTANCE_ID",
    "Broker: Unknown member": "UNKNOWN_MEMBER_ID",
    "Broker: Group rebalance in progress": "REBALANCE_IN_PROGRESS",
    "Broker: Specified group generation id is not valid": "ILLEGAL_GENERATION",
    "Broker: Unknown topic or partition": "UNKNOWN_TOPIC_OR_PARTITION",
    "Broker: Not leader for requested partition": "NOT_LEADER_OR_FOLLOWER",
    "Broker: Coordinator not available": "COORDINATOR_NOT_AVAILABLE",
    "Broker: Not coordinator": "NOT_COORDINATOR",
    "Broker: Coordinator load in progress": "COORDINATOR_LOAD_IN_PROGRESS",
    "Broker: Request timed out": "REQUEST_TIMED_OUT",
}


def _descriptions():
    table = dict(FALLBACK_DESCRIPTIONS)
    try:
        from confluent_kafka import KafkaError
        for attr in dir(KafkaError):
            code = getattr(KafkaError, attr)
            if isinstance(code, int) and not isinstance(code, bool) and code > 0:
                e = KafkaError(code)
                if e.str().startswith("Broker: ") and e.str() not in FALLBACK_DESCRIPTIONS:
                    table[e.str()] = e.name()
    except Exception:  # noqa: BLE001 - without confluent_kafka the built-in table has to do
        pass
    return sorted(table.items(), key=lambda kv: -len(kv[0]))


DESCRIPTIONS = _descriptions()


def name_from_text(text):
    for description, name in DESCRIPTIONS:
        if description in text:
            return name
    return None
