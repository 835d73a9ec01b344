// A Java kafka-clients consumer for test/broker/clients/java-clock.test.ts (built and started by
// ./java.ts). One source file, compiled unchanged against kafka-clients 3.9.x and 4.x.
//
//   java ... ClockConsumer --bootstrap H:P --topic T --group G --client-id C [--instance ID]
//                          [--session-timeout-ms S] [--heartbeat-interval-ms H] [--max-seconds M]
//
// stdout carries JSON lines and nothing else (System.out is pointed at stderr; the client's own
// log lines go to stderr too):
//   {"event":"started"}
//   {"event":"assigned"|"revoked"|"lost","partitions":[0,1],"memberId":"...","generationId":N}
//   {"event":"group","memberId":"...","generationId":N}     whenever groupMetadata() changes
//   {"event":"record","partition":P,"offset":O,"value":"...","memberId":"...","generationId":N}
//   {"event":"committed","offsets":{"0":O}} | {"event":"commit-failed","error":"...","message":"..."}
//   {"event":"error","error":"...","message":"..."}                  a poll that threw, survived
//   {"event":"stopping"}                                              SIGTERM (or --max-seconds) seen
//   {"event":"closed"}                                                consumer.close() returned
// Every line also has "t", the real time (epoch ms). The group fields come from consumer.groupMetadata(), i.e. what the client believes. Records are
// committed with commitSync after each poll that returned some. SIGTERM: "stopping", wakeup(),
// close() with its default timeout (a static member sends no LeaveGroup on close), "closed", exit 0.

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
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;

public final class ClockConsumer {
  // --- JSON lines: MatrixApp's writer (test/conformance/clients/java/MatrixApp.java, on the same
  // classpath: ./java.ts compiles this file against the matrix app's jar) -------------------------

  /** One event line, with "t", the real time (epoch ms). */
  static MatrixApp.Line event(String name) {
    return MatrixApp.event(name).put("t", System.currentTimeMillis());
  }

  static MatrixApp.Line errorLine(String name, Throwable t) {
    String m = t.getMessage();
    return event(name).put("error", t.getClass().getSimpleName()).put("message", m != null ? m : t.getClass().getName());
  }

  // --- arguments -------------------------------------------------------------------------------

  static Map<String, String> parse(String[] argv) {
    Map<String, String> opts = new HashMap<>();
    for (int i = 0; i < argv.length; i++) {
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

  // --- the consumer ----------------------------------------------------------------------------

  private static volatile boolean stopping = false;
  private static volatile KafkaConsumer<String, String> live = null;
  private static final CountDownLatch finished = new CountDownLatch(1);
  private static volatile int exitCode = 0;

  static synchronized void stop() {
    if (!stopping) event("stopping").print();
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

  static List<Integer> partitions(Collection<TopicPartition> tps) {
    List<Integer> out = new ArrayList<>();
    for (TopicPartition tp : tps) out.add(tp.partition());
    Collections.sort(out);
    return out;
  }

  static MatrixApp.Line withGroup(MatrixApp.Line line, KafkaConsumer<String, String> c) {
    ConsumerGroupMetadata g = c.groupMetadata();
    return line.put("memberId", g.memberId()).put("generationId", g.generationId());
  }

  public static void main(String[] argv) {
    System.setOut(System.err);
    Map<String, String> opts;
    try {
      opts = parse(argv);
      need(opts, "bootstrap");
      need(opts, "topic");
      need(opts, "group");
    } catch (IllegalArgumentException e) {
      event("error").put("error", "usage").put("message", e.getMessage()).print();
      System.exit(2);
      return;
    }
    final String topic = opts.get("topic");
    int maxSeconds = Integer.parseInt(opts.getOrDefault("max-seconds", "180"));

    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      stop();
      try {
        finished.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException ignored) {
        // exit anyway
      }
      Runtime.getRuntime().halt(exitCode);
    }, "clock-consumer-shutdown"));
    Thread safety = new Thread(() -> {
      try {
        Thread.sleep(maxSeconds * 1000L);
        stop();
      } catch (InterruptedException ignored) {
        // done
      }
    }, "clock-consumer-max-seconds");
    safety.setDaemon(true);
    safety.start();

    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, opts.get("bootstrap"));
    p.put(ConsumerConfig.GROUP_ID_CONFIG, opts.get("group"));
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, opts.getOrDefault("client-id", "clock-consumer"));
    if (opts.containsKey("instance")) p.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, opts.get("instance"));
    p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, opts.getOrDefault("session-timeout-ms", "10000"));
    p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, opts.getOrDefault("heartbeat-interval-ms", "500"));
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, RangeAssignor.class.getName());
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());

    final KafkaConsumer<String, String> consumer;
    try {
      consumer = new KafkaConsumer<>(p);
    } catch (Exception e) {
      errorLine("fatal", e).print();
      exitCode = 1;
      finished.countDown();
      System.exit(1);
      return;
    }
    live = consumer;
    int code = 0;
    try {
      consumer.subscribe(Collections.singletonList(topic), new ConsumerRebalanceListener() {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> tps) {
          withGroup(event("revoked").put("partitions", partitions(tps)), consumer).print();
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> tps) {
          withGroup(event("assigned").put("partitions", partitions(tps)), consumer).print();
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> tps) {
          // What Java calls when the coordinator no longer knows the member (the default would
          // call onPartitionsRevoked).
          withGroup(event("lost").put("partitions", partitions(tps)), consumer).print();
        }
      });
      event("started").print();
      String lastMember = null;
      int lastGeneration = Integer.MIN_VALUE;
      while (!stopping) {
        ConsumerRecords<String, String> records;
        try {
          records = consumer.poll(Duration.ofMillis(200));
        } catch (WakeupException e) {
          break;
        } catch (KafkaException e) {
          errorLine("error", e).print();
          Thread.sleep(100);
          continue;
        }
        ConsumerGroupMetadata g = consumer.groupMetadata();
        if (!g.memberId().equals(lastMember) || g.generationId() != lastGeneration) {
          lastMember = g.memberId();
          lastGeneration = g.generationId();
          event("group").put("memberId", lastMember).put("generationId", lastGeneration).print();
        }
        if (records.isEmpty()) continue;
        Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
        for (ConsumerRecord<String, String> r : records) {
          event("record").put("partition", r.partition()).put("offset", r.offset()).put("value", r.value())
              .put("memberId", g.memberId()).put("generationId", g.generationId()).print();
          next.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
        }
        try {
          consumer.commitSync(next);
          Map<String, Object> offsets = new TreeMap<>();
          for (Map.Entry<TopicPartition, OffsetAndMetadata> e : next.entrySet()) {
            offsets.put(Integer.toString(e.getKey().partition()), e.getValue().offset());
          }
          event("committed").put("offsets", offsets).print();
        } catch (WakeupException e) {
          break;
        } catch (CommitFailedException e) {
          errorLine("commit-failed", e).print();
        } catch (KafkaException e) {
          errorLine("commit-failed", e).print();
        }
      }
    } catch (Throwable t) {
      errorLine("fatal", t).print();
      code = 1;
    }
    try {
      consumer.close();
    } catch (Throwable t) {
      errorLine("error", t).put("during", "close").print();
    }
    live = null;
    event("closed").print();
    exitCode = code;
    finished.countDown();
    System.exit(code);
  }
}
