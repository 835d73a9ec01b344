// Reads a log dir's text files with Kafka's own readers, for test/broker/storage/format/
// kafka-reads-kmock.test.ts (run in Java's source-file mode against the Kafka 3.9.1 jars that
// scripts/kafka-reference caches: java -cp "<libs>/*" KafkaFormatReader.java <log dir> <partition dir>).
// One line per fact, "kind field=value ...", or "error <file> <exception>" when a reader throws.
import java.io.File;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.metadata.properties.MetaProperties;
import org.apache.kafka.metadata.properties.MetaPropertiesEnsemble;
import org.apache.kafka.storage.internals.checkpoint.CleanShutdownFileHandler;
import org.apache.kafka.storage.internals.checkpoint.LeaderEpochCheckpointFile;
import org.apache.kafka.storage.internals.checkpoint.PartitionMetadata;
import org.apache.kafka.storage.internals.checkpoint.PartitionMetadataFile;
import org.apache.kafka.storage.internals.log.EpochEntry;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;

public class KafkaFormatReader {
    public static void main(String[] args) throws Exception {
        File logDir = new File(args[0]);
        File partitionDir = new File(args[1]);
        LogDirFailureChannel failures = new LogDirFailureChannel(1);

        try {
            // MetaPropertiesEnsemble.Loader is how a broker reads every log dir's meta.properties at start.
            MetaPropertiesEnsemble ensemble = new MetaPropertiesEnsemble.Loader().addLogDirs(List.of(logDir.getAbsolutePath())).load();
            for (Map.Entry<String, MetaProperties> e : ensemble.logDirProps().entrySet()) {
                MetaProperties p = e.getValue();
                System.out.println("meta version=" + p.version().number() + " clusterId=" + p.clusterId().orElse("-")
                    + " nodeId=" + (p.nodeId().isPresent() ? p.nodeId().getAsInt() : -1)
                    + " directoryId=" + p.directoryId().map(Object::toString).orElse("-"));
            }
            for (String dir : ensemble.errorLogDirs()) System.out.println("error meta.properties " + dir);
        } catch (Exception e) {
            System.out.println("error meta.properties " + e);
        }

        try {
            OptionalLong epoch = new CleanShutdownFileHandler(logDir.getAbsolutePath()).read();
            System.out.println("cleanshutdown exists=" + new File(logDir, ".kafka_cleanshutdown").exists() + " brokerEpoch=" + (epoch.isPresent() ? epoch.getAsLong() : "none"));
        } catch (Exception e) {
            System.out.println("error .kafka_cleanshutdown " + e);
        }

        for (String name : List.of("recovery-point-offset-checkpoint", "log-start-offset-checkpoint", "replication-offset-checkpoint", "cleaner-offset-checkpoint")) {
            try {
                scala.collection.Map<TopicPartition, Object> read = new kafka.server.checkpoints.OffsetCheckpointFile(new File(logDir, name), null).read();
                System.out.println("checkpoint file=" + name + " entries=" + read.size());
                for (Map.Entry<TopicPartition, Object> e : scala.jdk.javaapi.CollectionConverters.asJava(read).entrySet()) {
                    System.out.println("offset file=" + name + " topic=" + e.getKey().topic() + " partition=" + e.getKey().partition() + " offset=" + e.getValue());
                }
            } catch (Exception e) {
                System.out.println("error " + name + " " + e);
            }
        }

        try {
            List<EpochEntry> epochs = new LeaderEpochCheckpointFile(new File(partitionDir, "leader-epoch-checkpoint"), failures).read();
            System.out.println("epochs count=" + epochs.size());
            for (EpochEntry e : epochs) System.out.println("epoch epoch=" + e.epoch + " startOffset=" + e.startOffset);
        } catch (Exception e) {
            System.out.println("error leader-epoch-checkpoint " + e);
        }

        try {
            PartitionMetadata pm = new PartitionMetadataFile(new File(partitionDir, "partition.metadata"), failures).read();
            System.out.println("partition.metadata version=" + pm.version() + " topicId=" + pm.topicId());
        } catch (Exception e) {
            System.out.println("error partition.metadata " + e);
        }
    }
}
