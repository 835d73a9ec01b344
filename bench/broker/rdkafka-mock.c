/*
 * A standalone librdkafka mock cluster, for the broker benchmarks (bench/broker/run.ts).
 *
 * Built at run time by bench/broker/peers.ts into a cache folder outside the repo
 * (gcc -O2 rdkafka-mock.c -lrdkafka); never committed as a binary.
 *
 *   rdkafka-mock [--brokers N] [--debug]
 *   rdkafka-mock --version        prints librdkafka's version and exits
 *
 * Creates a producer-type rd_kafka_t only to own a mock cluster of N brokers (default 1), prints
 * `listening on <bootstraps>` on stdout, then reads commands from stdin, one per line:
 *
 *   topic NAME PARTITIONS     create a topic (replication factor 1); answers `ok topic NAME`
 *                             or `error topic NAME: <reason>`
 *
 * It exits when stdin closes or on SIGTERM/SIGINT.
 *
 * Note (librdkafka 2.0.2): the mock's classic group coordinator waits a fixed 3000 ms before
 * completing the first join of an empty group (rdkafka_mock_cgrp.c, rd_kafka_mock_cgrp_rebalance);
 * rd_kafka_mock_group_initial_rebalance_delay_ms() only exists since v2.6.0.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

static volatile sig_atomic_t stop_requested = 0;

static void on_signal(int sig) {
        (void)sig;
        stop_requested = 1;
}

int main(int argc, char **argv) {
        int broker_cnt = 1;
        int debug      = 0;
        char errstr[512];

        for (int i = 1; i < argc; i++) {
                if (!strcmp(argv[i], "--brokers") && i + 1 < argc)
                        broker_cnt = atoi(argv[++i]);
                else if (!strcmp(argv[i], "--debug"))
                        debug = 1;
                else if (!strcmp(argv[i], "--version")) {
                        printf("%s\n", rd_kafka_version_str());
                        return 0;
                }
                else {
                        fprintf(stderr, "usage: %s [--brokers N] [--debug] | --version\n", argv[0]);
                        return 2;
                }
        }
        if (broker_cnt < 1) broker_cnt = 1;

        /* No SA_RESTART: a signal interrupts the blocking stdin read below. */
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);

        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        /* The owning client never connects anywhere: keep its logs quiet. */
        if (rd_kafka_conf_set(conf, "log_level", debug ? "7" : "3", errstr, sizeof(errstr)) !=
            RD_KAFKA_CONF_OK) {
                fprintf(stderr, "conf: %s\n", errstr);
                return 1;
        }
        if (debug && rd_kafka_conf_set(conf, "debug", "mock", errstr, sizeof(errstr)) !=
                         RD_KAFKA_CONF_OK) {
                fprintf(stderr, "conf: %s\n", errstr);
                return 1;
        }

        rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
        if (!rk) {
                fprintf(stderr, "rd_kafka_new: %s\n", errstr);
                return 1;
        }

        rd_kafka_mock_cluster_t *mcluster = rd_kafka_mock_cluster_new(rk, broker_cnt);
        if (!mcluster) {
                fprintf(stderr, "rd_kafka_mock_cluster_new failed\n");
                rd_kafka_destroy(rk);
                return 1;
        }

        printf("listening on %s\n", rd_kafka_mock_cluster_bootstraps(mcluster));
        fflush(stdout);

        char line[1024];
        while (!stop_requested) {
                if (!fgets(line, sizeof(line), stdin)) {
                        if (ferror(stdin) && errno == EINTR && !stop_requested) {
                                clearerr(stdin);
                                continue;
                        }
                        break; /* EOF, or interrupted by SIGTERM/SIGINT */
                }
                char name[512];
                int partitions;
                if (sscanf(line, "topic %511s %d", name, &partitions) == 2) {
                        rd_kafka_resp_err_t err =
                            rd_kafka_mock_topic_create(mcluster, name, partitions, 1);
                        if (err)
                                printf("error topic %s: %s\n", name, rd_kafka_err2str(err));
                        else
                                printf("ok topic %s\n", name);
                } else if (line[0] != '\n') {
                        printf("error unknown command\n");
                }
                fflush(stdout);
        }

        rd_kafka_mock_cluster_destroy(mcluster);
        rd_kafka_destroy(rk);
        return 0;
}
