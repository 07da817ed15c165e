#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Generates the ICRC test vectors of sroce_icrc_kunit.c.

Independent reference for the RoCEv2 ICRC (IBTA vol. 1 annex A17.3.3):
zlib.crc32() of 8 bytes of 0xff (the masked LRH) followed by the IP
header, UDP header, BTH, extended headers, payload and pad, with the
variant fields (IPv4 TOS, TTL, header checksum; IPv6 traffic class, flow
label, hop limit; UDP checksum; the BTH byte holding FECN/BECN/resv) set
to all ones.  The ICRC is stored after the pad, least significant byte
first.  Run: python3 kunit/sroce_icrc_vectors.py > /tmp/vectors.c
"""
import socket
import struct
import zlib


def csum16(b):
    s = sum(struct.unpack('!%dH' % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def bth(opcode, se, pad, pkey, becn, qpn, ackreq, psn):
    flags = (0x80 if se else 0) | 0x40 | (pad << 4)
    return struct.pack('!BBHII', opcode, flags, pkey,
                       (0x40000000 if becn else 0) | qpn,
                       (0x80000000 if ackreq else 0) | psn)


def udp(sport, length):
    return struct.pack('!HHHH', sport, 4791, length, 0)


def ipv4(tos, ttl, ident, src, dst, paylen):
    h = struct.pack('!BBHHHBBH4s4s', 0x45, tos, 20 + paylen, ident, 0x4000,
                    ttl, 17, 0, socket.inet_aton(src), socket.inet_aton(dst))
    return h[:10] + struct.pack('!H', csum16(h)) + h[12:]


def ipv6(tc, flow, hop, src, dst, paylen):
    w = (6 << 28) | (tc << 20) | flow
    return struct.pack('!IHBB16s16s', w, paylen, 17, hop,
                       socket.inet_pton(socket.AF_INET6, src),
                       socket.inet_pton(socket.AF_INET6, dst))


def masked(ip, udph, transport):
    ip = bytearray(ip)
    if ip[0] >> 4 == 4:
        ip[1] = 0xff
        ip[8] = 0xff
        ip[10:12] = b'\xff\xff'
    else:
        ip[0] |= 0x0f
        ip[1:4] = b'\xff\xff\xff'
        ip[7] = 0xff
    udph = bytearray(udph)
    udph[6:8] = b'\xff\xff'
    t = bytearray(transport)
    t[4] = 0xff
    return b'\xff' * 8 + bytes(ip) + bytes(udph) + bytes(t)


def packet(name, v6, transport_wo_icrc):
    ulen = 8 + len(transport_wo_icrc) + 4
    if v6:
        ip = ipv6(0x0a, 0x12345, 64, '2001:db8::1', '2001:db8::2', ulen)
    else:
        ip = ipv4(0x02, 64, 0x1234, '192.168.1.1', '192.168.1.2', ulen)
    u = udp(0xc000 | (len(name) * 97 & 0x3fff), ulen)
    icrc = zlib.crc32(masked(ip, u, transport_wo_icrc))
    pkt = ip + u + transport_wo_icrc + struct.pack('<I', icrc)
    return pkt, icrc, len(ip)


def vectors():
    v = []
    # RC SEND_ONLY, 5 bytes "hello" + 3 pad bytes, IPv4 with ECT(0).
    t = bth(0x04, False, 3, 0xffff, False, 0x11, True, 0x123456) + \
        b'hello' + b'\0' * 3
    v.append(('v4_rc_send_only_pad3', False) + packet('a', False, t))
    # RC RDMA WRITE ONLY with RETH and 32 bytes, IPv4.
    reth = struct.pack('!QII', 0x00007f0012345678, 0x00001234, 32)
    t = bth(0x0a, False, 0, 0xffff, False, 0xabcdef, True, 0xfffffe) + \
        reth + bytes(range(32))
    v.append(('v4_rc_write_only', False) + packet('bb', False, t))
    # UD SEND_ONLY_WITH_IMMEDIATE with DETH, 24 bytes, IPv6.
    deth = struct.pack('!II', 0x80010000, 0x000003)
    t = bth(0x65, True, 0, 0xffff, False, 0x000001, False, 0x000042) + \
        deth + struct.pack('!I', 0xdeadbeef) + bytes(range(0xa0, 0xb8))
    v.append(('v6_ud_send_only_imm', True) + packet('ccc', True, t))
    # RC ACKNOWLEDGE (AETH syndrome 0x1f, MSN 7), IPv6.
    t = bth(0x11, False, 0, 0x8001, False, 0x000123, False, 0x000100) + \
        struct.pack('!I', 0x1f000007)
    v.append(('v6_rc_ack', True) + packet('dddd', True, t))
    # CNP (BECN set, 16 reserved bytes), IPv4.
    t = bth(0x81, False, 0, 0xffff, True, 0x000456, False, 0) + b'\0' * 16
    v.append(('v4_cnp', False) + packet('eeeee', False, t))
    return v


def main():
    for name, v6, pkt, icrc, iplen in vectors():
        print('/* %s: zlib.crc32 = 0x%08x */' % (name, icrc))
        print('static const u8 sroce_icrc_%s[] = {' % name)
        for i in range(0, len(pkt), 12):
            print('\t' + ' '.join('0x%02x,' % b for b in pkt[i:i + 12]))
        print('};')
        print()
    for name, v6, pkt, icrc, iplen in vectors():
        print('\t{ "%s",\n\t  sroce_icrc_%s,\n\t  sizeof(sroce_icrc_%s), %s, 0x%08x },'
              % (name, name, name, 'true' if v6 else 'false', icrc))


if __name__ == '__main__':
    main()
