// A minimal libpcap writer for handing our frames to Wireshark's dissectors: classic pcap
// (microsecond timestamps, LINKTYPE_ETHERNET), Ethernet II + IPv4 + TCP with correct IPv4 and
// TCP checksums and consistent sequence numbers. Each connection starts with a three-way
// handshake, then carries whole Kafka frames, one TCP segment per frame.

const LINKTYPE_ETHERNET = 1;
const TCP_FIN = 0x01;
const TCP_SYN = 0x02;
const TCP_PSH = 0x08;
const TCP_ACK = 0x10;

export interface Endpoint {
  ip: [number, number, number, number];
  port: number;
}

interface Packet {
  data: Buffer;
  timeUs: number;
}

function checksum(buf: Buffer): number {
  let sum = 0;
  for (let i = 0; i + 1 < buf.length; i += 2) sum += buf.readUInt16BE(i);
  if (buf.length % 2 === 1) sum += buf[buf.length - 1] << 8;
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return ~sum & 0xffff;
}

function ethernetIpv4Tcp(src: Endpoint, dst: Endpoint, seq: number, ack: number, flags: number, payload: Buffer, ipId: number): Buffer {
  const tcp = Buffer.alloc(20);
  tcp.writeUInt16BE(src.port, 0);
  tcp.writeUInt16BE(dst.port, 2);
  tcp.writeUInt32BE(seq >>> 0, 4);
  tcp.writeUInt32BE(flags & TCP_ACK ? ack >>> 0 : 0, 8);
  tcp[12] = 5 << 4; // data offset: 5 words, no options
  tcp[13] = flags;
  tcp.writeUInt16BE(0xffff, 14); // window
  const pseudo = Buffer.alloc(12);
  Buffer.from(src.ip).copy(pseudo, 0);
  Buffer.from(dst.ip).copy(pseudo, 4);
  pseudo[9] = 6;
  pseudo.writeUInt16BE(tcp.length + payload.length, 10);
  tcp.writeUInt16BE(checksum(Buffer.concat([pseudo, tcp, payload])), 16);

  const totalLength = 20 + tcp.length + payload.length;
  if (totalLength > 0xffff) throw new Error(`a ${payload.length}-byte segment does not fit in one IPv4 packet`);
  const ip = Buffer.alloc(20);
  ip[0] = 0x45;
  ip.writeUInt16BE(totalLength, 2);
  ip.writeUInt16BE(ipId & 0xffff, 4);
  ip.writeUInt16BE(0x4000, 6); // don't fragment
  ip[8] = 64;
  ip[9] = 6;
  Buffer.from(src.ip).copy(ip, 12);
  Buffer.from(dst.ip).copy(ip, 16);
  ip.writeUInt16BE(checksum(ip), 10);

  const eth = Buffer.from([0x02, 0, 0, 0, 0, dst.ip[3], 0x02, 0, 0, 0, 0, src.ip[3], 0x08, 0x00]);
  return Buffer.concat([eth, ip, tcp, payload]);
}

/** One TCP connection between a client and a Kafka broker, recorded into a PcapWriter. */
export class TcpConversation {
  private clientSeq = 1000;
  private serverSeq = 500000;

  constructor(
    private readonly pcap: PcapWriter,
    readonly client: Endpoint,
    readonly server: Endpoint,
  ) {
    pcap.add(ethernetIpv4Tcp(client, server, this.clientSeq, 0, TCP_SYN, Buffer.alloc(0), pcap.nextIpId()));
    pcap.add(ethernetIpv4Tcp(server, client, this.serverSeq, this.clientSeq + 1, TCP_SYN | TCP_ACK, Buffer.alloc(0), pcap.nextIpId()));
    this.clientSeq += 1;
    this.serverSeq += 1;
    pcap.add(ethernetIpv4Tcp(client, server, this.clientSeq, this.serverSeq, TCP_ACK, Buffer.alloc(0), pcap.nextIpId()));
  }

  /** Client to broker; returns the 1-based frame number of the segment. */
  request(bytes: Buffer): number {
    const n = this.pcap.add(ethernetIpv4Tcp(this.client, this.server, this.clientSeq, this.serverSeq, TCP_PSH | TCP_ACK, bytes, this.pcap.nextIpId()));
    this.clientSeq += bytes.length;
    return n;
  }

  /** Broker to client; returns the 1-based frame number of the segment. */
  response(bytes: Buffer): number {
    const n = this.pcap.add(ethernetIpv4Tcp(this.server, this.client, this.serverSeq, this.clientSeq, TCP_PSH | TCP_ACK, bytes, this.pcap.nextIpId()));
    this.serverSeq += bytes.length;
    return n;
  }

  close(): void {
    this.pcap.add(ethernetIpv4Tcp(this.client, this.server, this.clientSeq, this.serverSeq, TCP_FIN | TCP_ACK, Buffer.alloc(0), this.pcap.nextIpId()));
    this.pcap.add(ethernetIpv4Tcp(this.server, this.client, this.serverSeq, this.clientSeq + 1, TCP_FIN | TCP_ACK, Buffer.alloc(0), this.pcap.nextIpId()));
    this.pcap.add(ethernetIpv4Tcp(this.client, this.server, this.clientSeq + 1, this.serverSeq + 1, TCP_ACK, Buffer.alloc(0), this.pcap.nextIpId()));
  }
}

/** Collects packets and serialises them as a classic libpcap file. */
export class PcapWriter {
  private readonly packets: Packet[] = [];
  private ipId = 1;
  private nextClientPort = 40000;
  private timeUs = 1_700_000_000_000_000;

  nextIpId(): number {
    return this.ipId++;
  }

  add(data: Buffer): number {
    this.timeUs += 1000;
    this.packets.push({ data, timeUs: this.timeUs });
    return this.packets.length;
  }

  /** A new connection from 10.0.0.1:<next port> to 10.0.0.2:<brokerPort>. */
  connect(brokerPort = 9092): TcpConversation {
    return new TcpConversation(this, { ip: [10, 0, 0, 1], port: this.nextClientPort++ }, { ip: [10, 0, 0, 2], port: brokerPort });
  }

  toBuffer(): Buffer {
    const header = Buffer.alloc(24);
    header.writeUInt32LE(0xa1b2c3d4, 0);
    header.writeUInt16LE(2, 4);
    header.writeUInt16LE(4, 6);
    header.writeInt32LE(0, 8);
    header.writeUInt32LE(0, 12);
    header.writeUInt32LE(262144, 16);
    header.writeUInt32LE(LINKTYPE_ETHERNET, 20);
    const parts: Buffer[] = [header];
    for (const p of this.packets) {
      const rec = Buffer.alloc(16);
      rec.writeUInt32LE(Math.floor(p.timeUs / 1e6), 0);
      rec.writeUInt32LE(p.timeUs % 1e6, 4);
      rec.writeUInt32LE(p.data.length, 8);
      rec.writeUInt32LE(p.data.length, 12);
      parts.push(rec, p.data);
    }
    return Buffer.concat(parts);
  }
}
