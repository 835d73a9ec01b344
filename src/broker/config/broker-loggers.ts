// The broker's log4j loggers as DescribeConfigs and IncrementalAlterConfigs see them (BROKER_LOGGER
// resources, KIP-412): kmock has no log4j, so it keeps the loggers a broker started with Kafka's
// config/log4j.properties has configured, their levels, and the changes IncrementalAlterConfigs
// makes. As on Kafka these changes are not persisted (a restart brings back the configured
// levels). Follows core/.../kafka/utils/Log4jController.scala (loggers, resolveLevel, logLevel,
// unsetLogLevel, loggerExists) and core/.../kafka/server/logger/RuntimeLoggerManager.java.

/** Log4jController.ROOT_LOGGER */
export const ROOT_LOGGER = 'root';

/** The loggers a broker started with Kafka's config/log4j.properties has configured, and their levels. */
export const BROKER_LOGGERS: ReadonlyArray<[string, string]> = [
  ['root', 'INFO'],
  ['kafka', 'INFO'],
  ['kafka.authorizer.logger', 'INFO'],
  ['kafka.controller', 'TRACE'],
  ['kafka.log.LogCleaner', 'INFO'],
  ['kafka.network.RequestChannel$', 'WARN'],
  ['kafka.request.logger', 'WARN'],
  ['org.apache.kafka', 'INFO'],
  ['org.apache.kafka.controller', 'INFO'],
  ['org.apache.zookeeper', 'INFO'],
  ['state.change.logger', 'INFO'],
];

/** LogLevelConfig.VALID_LOG_LEVELS, sorted as RuntimeLoggerManager.VALID_LOG_LEVELS_STRING lists them. */
export const VALID_LOG_LEVELS: readonly string[] = ['DEBUG', 'ERROR', 'FATAL', 'INFO', 'TRACE', 'WARN'];

export class BrokerLoggers {
  /** Logger name -> its own level (null: none, it inherits). */
  private readonly levels = new Map<string, string | null>(BROKER_LOGGERS);

  /** Log4jController.loggerExists */
  exists(name: string): boolean {
    return this.levels.has(name);
  }

  /** Log4jController.loggers: every logger with its effective level. */
  all(): Array<[string, string]> {
    return [...this.levels.keys()].map((name) => [name, this.resolve(name)]);
  }

  /** Log4jController.logLevel: sets a logger's own level. */
  setLevel(name: string, level: string): void {
    if (this.levels.has(name)) this.levels.set(name, level.toUpperCase());
  }

  /** Log4jController.unsetLogLevel: the logger inherits its ancestor's level again. */
  unsetLevel(name: string): void {
    if (this.levels.has(name) && name !== ROOT_LOGGER) this.levels.set(name, null);
  }

  /** Log4jController.resolveLevel: the logger's level, else the nearest configured ancestor's, else root's. */
  private resolve(name: string): string {
    let n = name;
    let level = this.levels.get(n) ?? null;
    while (level === null) {
      const i = n.lastIndexOf('.');
      if (i > 0) {
        n = n.slice(0, i);
        level = this.levels.get(n) ?? null;
      } else {
        level = this.levels.get(ROOT_LOGGER) ?? 'INFO';
      }
    }
    return level;
  }
}
