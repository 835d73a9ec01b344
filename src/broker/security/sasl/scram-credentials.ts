// SCRAM credentials (Kafka's ScramCredential: salt, stored key, server key, iterations), per user
// and mechanism, as Kafka keeps them in its metadata (UserScramCredentialRecord).
export type ScramMechanism = 'SCRAM-SHA-256' | 'SCRAM-SHA-512';

export interface ScramCredential {
  salt: Buffer;
  storedKey: Buffer;
  serverKey: Buffer;
  iterations: number;
}

export class ScramCredentialStore {
  private readonly byUser = new Map<string, Map<ScramMechanism, ScramCredential>>();

  get(user: string, mechanism: ScramMechanism): ScramCredential | undefined {
    return this.byUser.get(user)?.get(mechanism);
  }
}
