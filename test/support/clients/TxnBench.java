// A Java kafka-clients transactional producer and read_committed consumer for the transactions
// benchmark (bench/broker/txn.ts, built by test/support/clients/java.ts like the other programs).
// One source file, compiled unchanged against kafka-clients 3.9.x and 4.x.
//
//   java ... TxnBench produce --bootstrap H:P --topic T --transactional-id ID --txn-size N --txns M [--value-bytes B]
//   java ... TxnBench consume --bootstrap H:P --topic T --group G --expected N
//
// stdout carries one JSON line at the end: {"mode":"produce","records":R,"txns":M,"ms":X} (the
// timed part: the first beginTransaction to the last commitTransaction, after initTransactions and
// one untimed warm-up transaction) or {"mode":"consume","records":R,"ms":X} (subscribe to the last
// record, the group join included; isolation.level=read_committed). Errors: a line {"error":"...","message":"..."}, exit 1.

import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public final class TxnBench {
  public static void main(String[] argv) {
    Map<String, String> a = new HashMap<>();
    for (int i = 1; i + 1 < argv.length; i += 2) a.put(argv[i].replaceFirst("^--", ""), argv[i + 1]);
    try {
      if (argv.length > 0 && argv[0].equals("produce")) produce(a);
      else if (argv.length > 0 && argv[0].equals("consume")) consume(a);
      else throw new IllegalArgumentException("usage: TxnBench produce|consume ...");
    } catch (Exception e) {
      System.out.println("{\"error\":\"" + e.getClass().getSimpleName() + "\",\"message\":\"" + String.valueOf(e.getMessage()).replace("\"", "'") + "\"}");
      System.exit(1);
    }
  }

  private static void produce(Map<String, String> a) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, a.get("bootstrap"));
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, a.get("transactional-id"));
    p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    String topic = a.get("topic");
    int size = Integer.parseInt(a.get("txn-size"));
    int txns = Integer.parseInt(a.get("txns"));
    byte[] value = new byte[Integer.parseInt(a.getOrDefault("value-bytes", "100"))];
    java.util.Arrays.fill(value, (byte) 'a');
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      producer.initTransactions();
      oneTransaction(producer, topic, size, value); // warm-up
      long t0 = System.nanoTime();
      for (int t = 0; t < txns; t++) oneTransaction(producer, topic, size, value);
      double ms = (System.nanoTime() - t0) / 1e6;
      System.out.println("{\"mode\":\"produce\",\"records\":" + ((long) size * txns) + ",\"txns\":" + txns + ",\"ms\":" + ms + "}");
    }
  }

  private static void oneTransaction(KafkaProducer<byte[], byte[]> producer, String topic, int size, byte[] value) {
    producer.beginTransaction();
    for (int i = 0; i < size; i++) producer.send(new ProducerRecord<>(topic, null, value));
    producer.commitTransaction();
  }

  private static void consume(Map<String, String> a) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, a.get("bootstrap"));
    p.put(ConsumerConfig.GROUP_ID_CONFIG, a.get("group"));
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    long expected = Long.parseLong(a.get("expected"));
    long count = 0;
    long first = System.nanoTime();
    long deadline = System.currentTimeMillis() + 120_000;
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
      consumer.subscribe(Collections.singletonList(a.get("topic")));
      while (count < expected) {
        if (System.currentTimeMillis() > deadline) throw new IllegalStateException("read " + count + "/" + expected + " in 120 s");
        ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(200));
        count += records.count();
      }
      double ms = (System.nanoTime() - first) / 1e6;
      System.out.println("{\"mode\":\"consume\",\"records\":" + count + ",\"ms\":" + ms + "}");
    }
  }
}
