# Drives librdkafka (through python3-confluent-kafka) for test/support/librdkafka-capture.ts.
# Reads one JSON job on stdin:
#   {"bootstrap": "127.0.0.1:port",
#    "runs": [{"name": str, "config": {...}, "messages": [{"key": hex|null, "value": hex|null,
#              "headers": [[str, hex|null], ...] | null, "timestamp": int|null}]}]}
# Each run gets its own producer (client.id "kmock-capture.<name>", topic <name>, partition 0);
# all producers are created and fed first and flushed after.
# Writes {"runs": [{"name": str, "delivered": [{"error": str|null, "offset": int}], "unflushed": int}]}.
import json
import sys

from confluent_kafka import Producer


def unhex(v):
    return None if v is None else bytes.fromhex(v)


def main():
    job = json.load(sys.stdin)
    runs = []
    for run in job["runs"]:
        conf = {
            "bootstrap.servers": job["bootstrap"],
            "client.id": "kmock-capture." + run["name"],
            "message.timeout.ms": 10000,
            "socket.timeout.ms": 10000,
        }
        conf.update(run["config"])
        producer = Producer(conf)
        # Wait for the topic's metadata first, so the messages below reach the partition queue
        # together and linger.ms keeps them there until flush(): one batch, every time.
        producer.list_topics(run["name"], timeout=10)
        delivered = []

        def on_delivery(err, msg, delivered=delivered):
            delivered.append({"error": None if err is None else str(err), "offset": msg.offset()})

        for m in run["messages"]:
            kwargs = {"partition": 0, "on_delivery": on_delivery}
            if m.get("timestamp") is not None:
                kwargs["timestamp"] = m["timestamp"]
            if m.get("headers") is not None:
                kwargs["headers"] = [(k, unhex(v)) for k, v in m["headers"]]
            producer.produce(run["name"], unhex(m["value"]), unhex(m["key"]), **kwargs)
        runs.append((run["name"], producer, delivered))

    out = []
    for name, producer, delivered in runs:
        unflushed = producer.flush(15)
        out.append({"name": name, "delivered": delivered, "unflushed": unflushed})
    json.dump({"runs": out}, sys.stdout)


main()
