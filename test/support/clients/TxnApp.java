// An exactly-once consume-transform-produce app and a reader, with the Java kafka-clients, for
// test/broker/clients/java-transactions.test.ts (built and started by ./java.ts). One source file,
// compiled unchanged against kafka-clients 3.9.x and 4.x.
//
//   java ... TxnApp ctp  --bootstrap H:P --input IN --output OUT --group G --transactional-id X
//                        --client-id C [--hold FILE] [--transaction-timeout-ms T] [--max-seconds M]
//       A read_committed consumer of IN (group G, automatic commits off) and a transactional
//       producer (X). Each poll that returns records is one transaction: every record is written to
//       OUT (same partition, key, value "C(<value>)"), the next offsets go in with
//       sendOffsetsToTransaction(offsets, consumer.groupMetadata()), then commitTransaction(). With
//       --hold FILE, a transaction whose records are sent and flushed and whose offsets are added
//       waits before its commit while FILE exists (printing "holding" once).
//   java ... TxnApp read --bootstrap H:P --topic T --isolation read_committed|read_uncommitted
//                        [--max-seconds M]
//   java ... TxnApp offsets --bootstrap H:P --group G [--timeout-ms T]
//       Admin.listConsumerGroupOffsets(G) twice: with requireStable(true) (OffsetFetch's
//       RequireStable: Kafka answers UNSTABLE_OFFSET_COMMIT for a partition a transaction holds
//       an offset of), then without; timeout T (default 2000) each.
//       assign()s every partition of T, from the beginning, and polls until its position reaches
//       endOffsets() in every partition (under read_committed: the last stable offset).
//
// stdout carries JSON lines and nothing else (System.out is pointed at stderr, where the client's
// own log goes):
//   ctp:  {"event":"initialized"} (initTransactions() returned)  {"event":"started"} (subscribed)
//         {"event":"assigned"|"revoked","partitions":[..]}
//         {"event":"record","partition":P,"offset":O,"value":"..."}            each input record
//         {"event":"holding"}                                                   see --hold
//         {"event":"committed","offsets":{"0":N,..}}                            commitTransaction() returned
//         {"event":"fenced","error":"ProducerFencedException","message":"..."}  then exit 3
//         {"event":"error","error":"...","message":"...","during":"..."}       then abortTransaction() and on
//         {"event":"fatal",...,"during":"abortTransaction"}                    the abort failed too: exit 1
//         {"event":"closed"}                                                    SIGTERM / --max-seconds: exit 0
//   offsets: {"event":"offsets","requireStable":true|false,"offsets":{"<topic>-<p>":N,..}} or
//            {"event":"offsets-failed","requireStable":true|false,"error":"...","kafkaError":...}
//   read: {"event":"record","partition":P,"offset":O,"key":"..","value":".."} per record
//         {"event":"done","positions":{"0":N,..},"ends":{"0":N,..}}
// "error" names the exception's class (getSimpleName) and "kafkaError" the Kafka error (Errors enum)
// it maps to, when it does.

import java.io.File;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public final class TxnApp {
  static MatrixApp.Line event(String name) {
    return MatrixApp.event(name);
  }

  static MatrixApp.Line errorLine(String name, Throwable t) {
    String m = t.getMessage();
    MatrixApp.Line line = event(name).put("error", t.getClass().getSimpleName()).put("message", m != null ? m : t.getClass().getName());
    Errors e = Errors.forException(t);
    return line.put("kafkaError", e == Errors.UNKNOWN_SERVER_ERROR ? null : e.name());
  }

  static Map<String, String> parse(String[] argv, int from) {
    Map<String, String> opts = new HashMap<>();
    for (int i = from; i < argv.length; i++) {
      if (!argv[i].startsWith("--") || i + 1 >= argv.length) throw new IllegalArgumentException("bad argument: " + argv[i]);
      opts.put(argv[i].substring(2), argv[++i]);
    }
    return opts;
  }

  static String need(Map<String, String> opts, String k) {
    String v = opts.get(k);
    if (v == null) throw new IllegalArgumentException("missing --" + k);
    return v;
  }

  static List<Integer> partitions(Collection<TopicPartition> tps) {
    List<Integer> out = new ArrayList<>();
    for (TopicPartition tp : tps) out.add(tp.partition());
    Collections.sort(out);
    return out;
  }

  static Map<String, Object> byPartition(Map<TopicPartition, Long> m) {
    Map<String, Object> out = new TreeMap<>((a, b) -> Integer.compare(Integer.parseInt(a), Integer.parseInt(b)));
    for (Map.Entry<TopicPartition, Long> e : m.entrySet()) out.put(Integer.toString(e.getKey().partition()), e.getValue());
    return out;
  }

  private static volatile boolean stopping = false;
  private static volatile KafkaConsumer<String, String> live = null;
  private static final CountDownLatch finished = new CountDownLatch(1);
  private static volatile int exitCode = 0;

  static void stop() {
    stopping = true;
    KafkaConsumer<String, String> c = live;
    if (c != null) {
      try {
        c.wakeup();
      } catch (RuntimeException ignored) {
        // closed already
      }
    }
  }

  public static void main(String[] argv) {
    System.setOut(System.err);
    String role = argv.length > 0 ? argv[0] : "";
    Map<String, String> opts;
    try {
      opts = parse(argv, 1);
      need(opts, "bootstrap");
    } catch (IllegalArgumentException e) {
      event("error").put("error", "usage").put("message", e.getMessage()).print();
      System.exit(2);
      return;
    }
    int maxSeconds = Integer.parseInt(opts.getOrDefault("max-seconds", "120"));
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      stop();
      try {
        finished.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException ignored) {
        // exit anyway
      }
      Runtime.getRuntime().halt(exitCode);
    }, "txn-app-shutdown"));
    Thread safety = new Thread(() -> {
      try {
        Thread.sleep(maxSeconds * 1000L);
        stop();
      } catch (InterruptedException ignored) {
        // done
      }
    }, "txn-app-max-seconds");
    safety.setDaemon(true);
    safety.start();
    int code;
    try {
      switch (role) {
        case "ctp": code = ctp(opts); break;
        case "read": code = read(opts); break;
        case "offsets": code = offsets(opts); break;
        default:
          event("error").put("error", "usage").put("message", "unknown role " + role).print();
          code = 2;
      }
    } catch (Throwable t) {
      errorLine("error", t).put("during", "main").print();
      code = 1;
    }
    exitCode = code;
    finished.countDown();
    System.exit(code);
  }

  static Properties consumerProps(Map<String, String> opts, String isolation) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, opts.get("bootstrap"));
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "100");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    return p;
  }

  // ---------------------------------------------------------------------------------------------

  static int ctp(Map<String, String> opts) throws Exception {
    String input = need(opts, "input");
    final String output = need(opts, "output");
    String clientId = need(opts, "client-id");
    String hold = opts.get("hold");

    Properties pp = new Properties();
    pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, opts.get("bootstrap"));
    pp.put(ProducerConfig.CLIENT_ID_CONFIG, clientId + "-producer");
    pp.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, need(opts, "transactional-id"));
    pp.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, opts.getOrDefault("transaction-timeout-ms", "10000"));
    pp.put(ProducerConfig.LINGER_MS_CONFIG, "0");
    pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    KafkaProducer<String, String> producer = new KafkaProducer<>(pp);
    producer.initTransactions();
    event("initialized").print();

    Properties cp = consumerProps(opts, "read_committed");
    cp.put(ConsumerConfig.GROUP_ID_CONFIG, need(opts, "group"));
    cp.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
    cp.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, opts.getOrDefault("session-timeout-ms", "10000"));
    cp.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "500");
    cp.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, RangeAssignor.class.getName());
    KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp);
    live = consumer;
    int code = 0;
    try {
      consumer.subscribe(Collections.singletonList(input), new ConsumerRebalanceListener() {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> tps) {
          event("revoked").put("partitions", partitions(tps)).print();
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> tps) {
          event("assigned").put("partitions", partitions(tps)).print();
        }
      });
      event("started").print();
      while (!stopping) {
        ConsumerRecords<String, String> records;
        try {
          records = consumer.poll(Duration.ofMillis(200));
        } catch (WakeupException e) {
          break;
        }
        if (records.isEmpty()) continue;
        Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
        Map<TopicPartition, Long> nextOffsets = new HashMap<>();
        String during = "begin";
        try {
          producer.beginTransaction();
          during = "send";
          for (ConsumerRecord<String, String> r : records) {
            event("record").put("partition", r.partition()).put("offset", r.offset()).put("value", r.value()).print();
            producer.send(new ProducerRecord<>(output, r.partition(), r.key(), clientId + "(" + r.value() + ")"));
            next.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
            nextOffsets.put(new TopicPartition(r.topic(), r.partition()), r.offset() + 1);
          }
          during = "sendOffsetsToTransaction";
          producer.sendOffsetsToTransaction(next, consumer.groupMetadata());
          during = "flush";
          producer.flush();
          if (hold != null && new File(hold).exists()) {
            event("holding").print();
            while (new File(hold).exists() && !stopping) Thread.sleep(20);
          }
          during = "commitTransaction";
          producer.commitTransaction();
          event("committed").put("offsets", byPartition(nextOffsets)).print();
        } catch (ProducerFencedException e) {
          errorLine("fenced", e).put("during", during).print();
          code = 3;
          break;
        } catch (KafkaException e) {
          errorLine("error", e).put("during", during).print();
          try {
            producer.abortTransaction();
          } catch (KafkaException again) {
            // The producer is in a fatal state: nothing more it can do.
            errorLine("fatal", again).put("during", "abortTransaction").print();
            code = 1;
            break;
          }
          // From the committed offsets again.
          for (TopicPartition tp : consumer.assignment()) {
            OffsetAndMetadata c = consumer.committed(Collections.singleton(tp)).get(tp);
            consumer.seek(tp, c == null ? 0 : c.offset());
          }
        }
      }
    } finally {
      try {
        consumer.close();
      } catch (Exception e) {
        errorLine("error", e).put("during", "consumer.close").print();
      }
      live = null;
      try {
        producer.close(Duration.ofSeconds(5));
      } catch (Exception e) {
        errorLine("error", e).put("during", "producer.close").print();
      }
    }
    if (code == 0) event("closed").print();
    return code;
  }

  // ---------------------------------------------------------------------------------------------

  static int offsets(Map<String, String> opts) {
    String group = need(opts, "group");
    int timeout = Integer.parseInt(opts.getOrDefault("timeout-ms", "2000"));
    Properties ap = new Properties();
    ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, opts.get("bootstrap"));
    ap.put(AdminClientConfig.CLIENT_ID_CONFIG, "txn-app-admin");
    try (Admin admin = Admin.create(ap)) {
      for (boolean stable : new boolean[] {true, false}) {
        ListConsumerGroupOffsetsOptions o = new ListConsumerGroupOffsetsOptions().requireStable(stable);
        o.timeoutMs(timeout);
        try {
          Map<TopicPartition, OffsetAndMetadata> got = admin.listConsumerGroupOffsets(group, o).partitionsToOffsetAndMetadata().get();
          Map<String, Object> out = new TreeMap<>();
          for (Map.Entry<TopicPartition, OffsetAndMetadata> e : got.entrySet()) {
            out.put(e.getKey().toString(), e.getValue() == null ? null : e.getValue().offset());
          }
          event("offsets").put("requireStable", stable).put("offsets", out).print();
        } catch (ExecutionException | InterruptedException e) {
          Throwable cause = e.getCause() != null ? e.getCause() : e;
          errorLine("offsets-failed", cause).put("requireStable", stable).print();
        }
      }
    }
    return 0;
  }

  // ---------------------------------------------------------------------------------------------

  static int read(Map<String, String> opts) {
    String topic = need(opts, "topic");
    Properties cp = consumerProps(opts, opts.getOrDefault("isolation", "read_committed"));
    cp.put(ConsumerConfig.CLIENT_ID_CONFIG, "txn-app-reader");
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp)) {
      live = consumer;
      List<TopicPartition> tps = new ArrayList<>();
      for (PartitionInfo p : consumer.partitionsFor(topic)) tps.add(new TopicPartition(topic, p.partition()));
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      // Under read_committed, endOffsets() answers the last stable offset.
      Map<TopicPartition, Long> ends = consumer.endOffsets(tps);
      Map<TopicPartition, Long> positions = new HashMap<>();
      while (!stopping) {
        boolean done = true;
        for (TopicPartition tp : tps) {
          long pos = consumer.position(tp);
          positions.put(tp, pos);
          if (pos < ends.get(tp)) done = false;
        }
        if (done) break;
        ConsumerRecords<String, String> records;
        try {
          records = consumer.poll(Duration.ofMillis(200));
        } catch (WakeupException e) {
          break;
        }
        for (ConsumerRecord<String, String> r : records) {
          event("record").put("partition", r.partition()).put("offset", r.offset()).put("key", r.key()).put("value", r.value()).print();
        }
      }
      event("done").put("positions", byPartition(positions)).put("ends", byPartition(ends)).put("complete", !stopping).print();
    }
    live = null;
    return 0;
  }
}
