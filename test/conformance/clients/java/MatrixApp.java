// The client-matrix app for the Java kafka-clients (see ../PROTOCOL.md for the contract).
// One source file, compiled unchanged against kafka-clients 3.9.x and 4.x by build.sh: it only
// uses APIs present in both, and reads the group state by reflection (groupState() in 4.x,
// state() in 3.9; 4.x deprecates state()).
//
//   java ... MatrixApp produce  --bootstrap H:P --topic T --from I --count N [--partitions P]
//   java ... MatrixApp consume  --bootstrap H:P --topic T --group G --client-id C [--instance ID]
//                               [--session-timeout-ms S] [--max-seconds M]
//   java ... MatrixApp describe --bootstrap H:P --group G [--topic T]
//   java ... MatrixApp remove   --bootstrap H:P --group G --instance ID
//   java ... MatrixApp transact --bootstrap H:P --topic T --from I --commit N --abort M --transactional-id X
//                               [--partitions P]
//   java ... MatrixApp read     --bootstrap H:P --topic T --until P:O,... [--isolation L] [--max-seconds S]
//   java ... MatrixApp warmup   (build.sh only: loads the client's classes for the CDS archive)
//
// stdout carries the JSON lines and nothing else: System.out is pointed at stderr before any
// client class loads, and the JSON goes to the process's real stdout.

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.MemberToRemove;
import org.apache.kafka.clients.admin.RemoveMembersFromConsumerGroupOptions;
import org.apache.kafka.clients.admin.RemoveMembersFromConsumerGroupResult;
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
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.UnknownServerException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public final class MatrixApp {
  // ---------------------------------------------------------------------------------------------
  // output: one JSON object per line on the real stdout, flushed at once
  // ---------------------------------------------------------------------------------------------

  private static final PrintStream OUT =
      new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);

  /** Builds one JSON object: put(key, value) pairs in order; values are JSON-encoded by json(). */
  static final class Line {
    private final StringBuilder sb = new StringBuilder("{");

    Line put(String key, Object value) {
      if (sb.length() > 1) sb.append(',');
      json(sb, key);
      sb.append(':');
      json(sb, value);
      return this;
    }

    void print() {
      String s = sb.toString() + "}";
      synchronized (OUT) {
        OUT.print(s);
        OUT.print('\n');
        OUT.flush();
      }
    }
  }

  static Line event(String name) {
    return new Line().put("event", name);
  }

  static void json(StringBuilder sb, Object v) {
    if (v == null) {
      sb.append("null");
    } else if (v instanceof String) {
      String s = (String) v;
      sb.append('"');
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        switch (c) {
          case '"': sb.append("\\\""); break;
          case '\\': sb.append("\\\\"); break;
          case '\n': sb.append("\\n"); break;
          case '\r': sb.append("\\r"); break;
          case '\t': sb.append("\\t"); break;
          default:
            if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
            else sb.append(c);
        }
      }
      sb.append('"');
    } else if (v instanceof Number || v instanceof Boolean) {
      sb.append(v);
    } else if (v instanceof Map) {
      sb.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
        if (!first) sb.append(',');
        first = false;
        json(sb, String.valueOf(e.getKey()));
        sb.append(':');
        json(sb, e.getValue());
      }
      sb.append('}');
    } else if (v instanceof Collection) {
      sb.append('[');
      boolean first = true;
      for (Object o : (Collection<?>) v) {
        if (!first) sb.append(',');
        first = false;
        json(sb, o);
      }
      sb.append(']');
    } else if (v instanceof Line) {
      sb.append(((Line) v).sb).append('}');
    } else {
      json(sb, v.toString());
    }
  }

  // ---------------------------------------------------------------------------------------------
  // errors: the Kafka error name (Errors enum) of an exception, or null
  // ---------------------------------------------------------------------------------------------

  static Throwable unwrap(Throwable t) {
    while ((t instanceof ExecutionException || t instanceof CompletionException) && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /** The Errors name of t or of the first cause that maps to one; null when none does. */
  static String errorName(Throwable t) {
    for (Throwable x = unwrap(t); x != null; x = x.getCause()) {
      if (x instanceof UnknownServerException) return Errors.UNKNOWN_SERVER_ERROR.name();
      Errors e = Errors.forException(x);
      if (e != Errors.UNKNOWN_SERVER_ERROR && e != Errors.NONE) return e.name();
      if (x.getCause() == x) break;
    }
    return null;
  }

  static String message(Throwable t) {
    Throwable x = unwrap(t);
    String m = x.getMessage();
    return m != null ? m : x.getClass().getName();
  }

  static Line errorLine(String event, Throwable t) {
    return event(event).put("name", errorName(t)).put("message", message(t));
  }

  // ---------------------------------------------------------------------------------------------
  // arguments
  // ---------------------------------------------------------------------------------------------

  static final class Args {
    final Map<String, String> opts = new HashMap<>();

    Args(String[] argv, int from) {
      for (int i = from; i < argv.length; i++) {
        String a = argv[i];
        if (!a.startsWith("--")) throw new IllegalArgumentException("unexpected argument: " + a);
        int eq = a.indexOf('=');
        if (eq > 0) {
          opts.put(a.substring(2, eq), a.substring(eq + 1));
        } else {
          if (i + 1 >= argv.length) throw new IllegalArgumentException("missing value for " + a);
          opts.put(a.substring(2), argv[++i]);
        }
      }
    }

    String get(String k) {
      String v = opts.get(k);
      if (v == null) throw new IllegalArgumentException("missing --" + k);
      return v;
    }

    String get(String k, String dflt) {
      return opts.getOrDefault(k, dflt);
    }

    int getInt(String k, int dflt) {
      String v = opts.get(k);
      if (v == null) return dflt;
      try {
        return Integer.parseInt(v);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("--" + k + " wants an integer, got " + v);
      }
    }

    int getInt(String k) {
      get(k);
      return getInt(k, 0);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // main
  // ---------------------------------------------------------------------------------------------

  public static void main(String[] argv) {
    // Anything the client (or a logging backend) prints to System.out goes to stderr.
    System.setOut(System.err);
    String role = argv.length > 0 ? argv[0] : "";
    int code;
    try {
      Args args = new Args(argv, 1);
      switch (role) {
        case "produce": code = produce(args); break;
        case "consume": code = consume(args); break;
        case "describe": code = describe(args); break;
        case "remove": code = remove(args); break;
        case "transact": code = transact(args); break;
        case "read": code = read(args); break;
        case "warmup": code = warmup(args); break;
        default:
          event("unsupported").put("role", role).put("why", "unknown role").print();
          code = 2;
      }
    } catch (IllegalArgumentException e) {
      event("error").put("name", null).put("message", e.getMessage()).print();
      code = 1;
    } catch (Throwable t) {
      errorLine("error", t).print();
      code = 1;
    }
    OUT.flush();
    System.exit(code);
  }

  static Properties common(Args args) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, args.get("bootstrap"));
    security(args, p);
    return p;
  }

  /**
   * The security options (PROTOCOL.md): --security-protocol SASL_SSL --sasl-mechanism M
   * --sasl-username U --sasl-password P --ssl-ca FILE, all or none (none: PLAINTEXT). The CA is a
   * PEM truststore (kafka-clients 2.7+, KIP-651).
   */
  static void security(Args args, Properties p) {
    String[] keys = {"security-protocol", "sasl-mechanism", "sasl-username", "sasl-password", "ssl-ca"};
    int given = 0;
    for (String k : keys) if (args.opts.containsKey(k)) given++;
    if (given == 0) return;
    if (given != keys.length) throw new IllegalArgumentException("the security options go together: " + String.join(", ", keys));
    String protocol = args.get("security-protocol");
    if (!protocol.equals("SASL_SSL")) throw new IllegalArgumentException("--security-protocol wants SASL_SSL, got " + protocol);
    String mechanism = args.get("sasl-mechanism");
    String module;
    if (mechanism.equals("PLAIN")) module = "org.apache.kafka.common.security.plain.PlainLoginModule";
    else if (mechanism.equals("SCRAM-SHA-256")) module = "org.apache.kafka.common.security.scram.ScramLoginModule";
    else throw new IllegalArgumentException("--sasl-mechanism wants PLAIN or SCRAM-SHA-256, got " + mechanism);
    p.put("security.protocol", protocol);
    p.put("sasl.mechanism", mechanism);
    p.put("sasl.jaas.config", module + " required username=\"" + jaasEscape(args.get("sasl-username"))
        + "\" password=\"" + jaasEscape(args.get("sasl-password")) + "\";");
    p.put("ssl.truststore.type", "PEM");
    p.put("ssl.truststore.location", args.get("ssl-ca"));
  }

  static String jaasEscape(String s) {
    return s.replace("\\", "\\\\").replace("\"", "\\\"");
  }

  // ---------------------------------------------------------------------------------------------
  // produce
  // ---------------------------------------------------------------------------------------------

  static int produce(Args args) {
    String topic = args.get("topic");
    int from = args.getInt("from");
    int count = args.getInt("count");
    int partitions = args.getInt("partitions", 3);
    Properties p = common(args);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      List<Future<RecordMetadata>> acks = new ArrayList<>(count);
      for (int i = from; i < from + count; i++) {
        acks.add(producer.send(new ProducerRecord<>(topic, i % partitions,
            ("k" + i).getBytes(StandardCharsets.UTF_8), ("v" + i).getBytes(StandardCharsets.UTF_8))));
      }
      producer.flush();
      for (Future<RecordMetadata> f : acks) f.get();
    } catch (Exception e) {
      errorLine("error", e).print();
      return 1;
    }
    event("produced").put("count", count).print();
    return 0;
  }

  // ---------------------------------------------------------------------------------------------
  // consume
  // ---------------------------------------------------------------------------------------------

  private static volatile boolean stopping = false;
  private static volatile KafkaConsumer<byte[], byte[]> liveConsumer = null;
  private static volatile int exitCode = 0;
  private static final CountDownLatch finished = new CountDownLatch(1);

  static List<Integer> partitionsOf(Collection<TopicPartition> tps, String topic) {
    List<Integer> out = new ArrayList<>();
    for (TopicPartition tp : tps) if (topic == null || tp.topic().equals(topic)) out.add(tp.partition());
    Collections.sort(out);
    return out;
  }

  static void stop() {
    stopping = true;
    KafkaConsumer<byte[], byte[]> c = liveConsumer;
    if (c != null) {
      try {
        c.wakeup();
      } catch (RuntimeException ignored) {
        // closed already
      }
    }
  }

  static int consume(Args args) {
    final String topic = args.get("topic");
    String group = args.get("group");
    String clientId = args.get("client-id");
    String instance = args.get("instance", null);
    int session = args.getInt("session-timeout-ms", 10000);
    int maxSeconds = args.getInt("max-seconds", 120);

    // SIGTERM (and System.exit): wake the poll thread, let it close the consumer and print
    // "closed", then end the JVM with the exit code the poll thread chose (not 143).
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      stop();
      try {
        finished.await(60, TimeUnit.SECONDS);
      } catch (InterruptedException ignored) {
        // exit anyway
      }
      OUT.flush();
      Runtime.getRuntime().halt(exitCode);
    }, "matrix-shutdown"));
    Thread timer = new Thread(() -> {
      try {
        Thread.sleep(maxSeconds * 1000L);
        stop();
      } catch (InterruptedException ignored) {
        // done before the safety net
      }
    }, "matrix-max-seconds");
    timer.setDaemon(true);
    timer.start();

    Properties p = common(args);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
    if (instance != null) p.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instance);
    p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, Integer.toString(session));
    p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, Integer.toString(Math.max(1, session / 10)));
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, RangeAssignor.class.getName());
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());

    KafkaConsumer<byte[], byte[]> consumer;
    try {
      consumer = new KafkaConsumer<>(p);
    } catch (Exception e) {
      errorLine("error", e).print();
      exitCode = 1;
      finished.countDown();
      return 1;
    }
    liveConsumer = consumer;
    Line fatal = null;
    try {
      consumer.subscribe(Collections.singletonList(topic), new ConsumerRebalanceListener() {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
          event("revoked").put("partitions", partitionsOf(partitions, topic)).print();
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
          event("assigned").put("partitions", partitionsOf(partitions, topic)).print();
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
          // The default calls onPartitionsRevoked; same event, marked as a loss.
          event("revoked").put("partitions", partitionsOf(partitions, topic)).put("lost", true).print();
        }
      });
      event("started").print();
      while (!stopping) {
        ConsumerRecords<byte[], byte[]> records;
        try {
          records = consumer.poll(Duration.ofMillis(1000));
        } catch (WakeupException e) {
          break;
        } catch (FencedInstanceIdException e) {
          fatal = errorLine("fatal", e);
          break;
        } catch (KafkaException e) {
          // Reported and survived; a short pause so that a repeating error does not spin.
          errorLine("error", e).print();
          try {
            Thread.sleep(200);
          } catch (InterruptedException ignored) {
            // carry on
          }
          continue;
        }
        if (records.isEmpty()) continue;
        Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
          event("message").put("partition", r.partition()).put("offset", r.offset())
              .put("key", r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8))
              .put("value", r.value() == null ? null : new String(r.value(), StandardCharsets.UTF_8))
              .print();
          next.put(new TopicPartition(r.topic(), r.partition()),
              new OffsetAndMetadata(r.offset() + 1, r.leaderEpoch(), ""));
        }
        int attempts = 0;
        while (true) {
          try {
            consumer.commitSync(next);
            Map<String, Object> offsets = new TreeMap<>((a, b) -> Integer.compare(Integer.parseInt(a), Integer.parseInt(b)));
            for (Map.Entry<TopicPartition, OffsetAndMetadata> e : next.entrySet()) {
              offsets.put(Integer.toString(e.getKey().partition()), e.getValue().offset());
            }
            event("committed").put("offsets", offsets).print();
            break;
          } catch (WakeupException e) {
            // SIGTERM during the commit: finish the commit (the wakeup is spent), then stop.
            if (++attempts > 1) break;
          } catch (FencedInstanceIdException e) {
            fatal = errorLine("fatal", e).put("during", "commit");
            break;
          } catch (KafkaException e) {
            errorLine("error", e).put("during", "commit").print();
            break;
          }
        }
        if (fatal != null) break;
      }
    } catch (Throwable t) {
      fatal = errorLine("fatal", t);
    }
    try {
      consumer.close();
    } catch (Throwable t) {
      if (fatal == null) errorLine("error", t).put("during", "close").print();
    }
    liveConsumer = null;
    if (fatal != null) {
      // Printed after close(), so that it is the last line (close() may still report the
      // partitions as lost).
      fatal.print();
      exitCode = 3;
    } else {
      event("closed").print();
      exitCode = 0;
    }
    finished.countDown();
    return exitCode;
  }

  // ---------------------------------------------------------------------------------------------
  // describe
  // ---------------------------------------------------------------------------------------------

  /** Kafka's name of the group state: groupState() (4.x) or state() (3.9), by reflection. */
  static String stateName(ConsumerGroupDescription d) throws Exception {
    Object s = null;
    for (String m : new String[] {"groupState", "state"}) {
      Method method;
      try {
        method = d.getClass().getMethod(m);
      } catch (NoSuchMethodException e) {
        continue;
      }
      s = method.invoke(d);
      break;
    }
    if (s == null) return null;
    switch (((Enum<?>) s).name()) {
      case "STABLE": return "Stable";
      case "EMPTY": return "Empty";
      case "PREPARING_REBALANCE": return "PreparingRebalance";
      case "COMPLETING_REBALANCE": return "CompletingRebalance";
      case "DEAD": return "Dead";
      default: return s.toString();
    }
  }

  static int describe(Args args) {
    String group = args.get("group");
    String topic = args.get("topic", null);
    try (Admin admin = Admin.create(common(args))) {
      ConsumerGroupDescription d;
      try {
        d = admin.describeConsumerGroups(Collections.singletonList(group)).describedGroups().get(group).get();
      } catch (Exception e) {
        errorLine("error", e).print();
        return 1;
      }
      List<Object> members = new ArrayList<>();
      for (MemberDescription m : d.members()) {
        members.add(new Line().put("clientId", m.clientId())
            .put("instanceId", m.groupInstanceId().orElse(null))
            .put("partitions", partitionsOf(m.assignment().topicPartitions(), topic)));
      }
      event("group").put("state", stateName(d))
          .put("protocolType", d.isSimpleConsumerGroup() ? "" : "consumer")
          .put("protocol", d.partitionAssignor())
          .put("members", members).print();
      return 0;
    } catch (Exception e) {
      errorLine("error", e).print();
      return 1;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // remove
  // ---------------------------------------------------------------------------------------------

  static int remove(Args args) {
    String group = args.get("group");
    String instance = args.get("instance");
    try (Admin admin = Admin.create(common(args))) {
      MemberToRemove member = new MemberToRemove(instance);
      RemoveMembersFromConsumerGroupResult result = admin.removeMembersFromConsumerGroup(group,
          new RemoveMembersFromConsumerGroupOptions(Collections.singletonList(member)));
      String error = null;
      try {
        result.memberResult(member).get();
      } catch (ExecutionException e) {
        error = errorName(e);
        if (error == null) {
          errorLine("error", e).print();
          return 1;
        }
      }
      event("removed").put("instance", instance).put("error", error).print();
      return 0;
    } catch (Exception e) {
      errorLine("error", e).print();
      return 1;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // transact
  // ---------------------------------------------------------------------------------------------

  static int transact(Args args) {
    String topic = args.get("topic");
    int from = args.getInt("from");
    int commit = args.getInt("commit");
    int abort = args.getInt("abort");
    int partitions = args.getInt("partitions", 3);
    Properties p = common(args);
    p.put(ProducerConfig.CLIENT_ID_CONFIG, "matrix-java-txn-producer");
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, args.get("transactional-id"));
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    String during = "init";
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      try {
        producer.initTransactions();
        for (int round = 0; round < 2; round++) {
          int first = round == 0 ? from : from + commit;
          int count = round == 0 ? commit : abort;
          during = "begin";
          producer.beginTransaction();
          during = "send";
          List<Future<RecordMetadata>> acks = new ArrayList<>(count);
          for (int i = first; i < first + count; i++) {
            acks.add(producer.send(new ProducerRecord<>(topic, i % partitions,
                ("k" + i).getBytes(StandardCharsets.UTF_8), ("v" + i).getBytes(StandardCharsets.UTF_8))));
          }
          // Every record acknowledged (abortTransaction() would drop what is still queued).
          producer.flush();
          for (Future<RecordMetadata> f : acks) f.get();
          if (round == 0) {
            during = "commit";
            producer.commitTransaction();
            event("committed").put("count", count).print();
          } else {
            during = "abort";
            producer.abortTransaction();
            event("aborted").put("count", count).print();
          }
        }
      } catch (Exception e) {
        errorLine("error", e).put("during", during).print();
        return 1;
      }
    }
    event("transacted").print();
    return 0;
  }

  // ---------------------------------------------------------------------------------------------
  // read
  // ---------------------------------------------------------------------------------------------

  static int read(Args args) {
    String topic = args.get("topic");
    Map<TopicPartition, Long> until = new HashMap<>();
    for (String item : args.get("until").split(",")) {
      String[] po = item.split(":");
      until.put(new TopicPartition(topic, Integer.parseInt(po[0])), Long.parseLong(po[1]));
    }
    long deadline = System.currentTimeMillis() + 1000L * args.getInt("max-seconds", 60);
    Properties p = common(args);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "matrix-java-reader");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, args.get("isolation", "read_committed"));
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "100");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    boolean complete = false;
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
      consumer.assign(until.keySet());
      consumer.seekToBeginning(until.keySet());
      while (System.currentTimeMillis() < deadline) {
        // position(): the next offset to fetch, past control and aborted batches too.
        boolean done = true;
        for (Map.Entry<TopicPartition, Long> e : until.entrySet()) {
          if (consumer.position(e.getKey()) < e.getValue()) done = false;
        }
        if (done) {
          complete = true;
          break;
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          event("message").put("partition", r.partition()).put("offset", r.offset())
              .put("key", r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8))
              .put("value", r.value() == null ? null : new String(r.value(), StandardCharsets.UTF_8))
              .print();
        }
      }
    } catch (Exception e) {
      errorLine("error", e).print();
      return 1;
    }
    event("read").put("complete", complete).print();
    return 0;
  }

  // ---------------------------------------------------------------------------------------------
  // warmup (build.sh: the training run of the class-data-sharing archive; prints nothing)
  // ---------------------------------------------------------------------------------------------

  static int warmup(Args args) throws Exception {
    // Clients against a closed port: configuration, metrics, logging, network classes.
    Properties p = new Properties();
    p.put("bootstrap.servers", args.get("bootstrap", "127.0.0.1:1"));
    p.put("reconnect.backoff.max.ms", "50");
    p.put(ConsumerConfig.GROUP_ID_CONFIG, "warmup");
    p.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "warmup");
    p.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, RangeAssignor.class.getName());
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
      c.subscribe(Collections.singletonList("warmup"));
      c.poll(Duration.ofMillis(100));
    }
    Properties pp = new Properties();
    pp.put("bootstrap.servers", p.get("bootstrap.servers"));
    pp.put(ProducerConfig.ACKS_CONFIG, "all");
    pp.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
    pp.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "100");
    pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    try (KafkaProducer<byte[], byte[]> pr = new KafkaProducer<>(pp)) {
      pr.send(new ProducerRecord<>("warmup", 0, new byte[1], new byte[1]));
    } catch (KafkaException ignored) {
      // no broker
    }
    Properties ap = new Properties();
    ap.put("bootstrap.servers", p.get("bootstrap.servers"));
    ap.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "200");
    ap.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "200");
    try (Admin admin = Admin.create(ap)) {
      admin.describeConsumerGroups(Collections.singletonList("warmup")).all().get();
    } catch (ExecutionException ignored) {
      // no broker
    }
    StringBuilder sb = new StringBuilder();
    json(sb, Map.of("a", List.of(1, "b", true)));
    errorName(new FencedInstanceIdException("warmup"));
    // Then every class of kafka-clients that the protocol and the clients use once a broker
    // answers (messages, requests, records, consumer/producer/admin internals), loaded but not
    // initialized, so that the archive holds them.
    String jar = RangeAssignor.class.getProtectionDomain().getCodeSource().getLocation().getPath();
    ClassLoader loader = MatrixApp.class.getClassLoader();
    int loaded = 0;
    try (JarFile jf = new JarFile(jar)) {
      for (Enumeration<JarEntry> en = jf.entries(); en.hasMoreElements(); ) {
        String n = en.nextElement().getName();
        if (!n.endsWith(".class") || n.equals("module-info.class")) continue;
        if (!(n.startsWith("org/apache/kafka/common/") || n.startsWith("org/apache/kafka/clients/"))) continue;
        // JSON converters and OAuth need jars the classpath does not hold.
        if (n.contains("JsonConverter") || n.contains("/oauthbearer/")) continue;
        try {
          Class.forName(n.substring(0, n.length() - 6).replace('/', '.'), false, loader);
          loaded++;
        } catch (Throwable ignored) {
          // optional dependency missing
        }
      }
    }
    System.err.println("warmup: loaded " + loaded + " classes of " + jar);
    return 0;
  }
}
