// What the group checks (group-checks.ts) remember between requests: per connection, the member
// ids it was handed with MEMBER_ID_REQUIRED and has not used yet, per group. Keyed by the
// connection's info object, so a closed connection's entries go with it.
import type { ConnectionInfo } from '../connection.js';

export interface PendingMemberId {
  memberId: string;
  /** The JoinGroup that was answered MEMBER_ID_REQUIRED. */
  correlationId: number;
}

export class GroupCheckState {
  private readonly pending = new WeakMap<ConnectionInfo, Map<string, PendingMemberId>>();

  pendingMemberId(connection: ConnectionInfo, groupId: string): PendingMemberId | undefined {
    return this.pending.get(connection)?.get(groupId);
  }

  setPendingMemberId(connection: ConnectionInfo, groupId: string, p: PendingMemberId): void {
    let byGroup = this.pending.get(connection);
    if (byGroup === undefined) {
      byGroup = new Map();
      this.pending.set(connection, byGroup);
    }
    byGroup.set(groupId, p);
  }

  /** The connection used (or gave up) the member id it was handed for the group. */
  clearPendingMemberId(connection: ConnectionInfo, groupId: string): void {
    this.pending.get(connection)?.delete(groupId);
  }
}
