#!/usr/bin/env python3
"""SASS instruction counts of sm_90 cubins without cuobjdump (development machines have ptxas only).

    python3 bench/ptx/sass_count.py OUTDIR/K2.cubin ...     (cubins that vyre-bench-ptx or nvcc -cubin wrote)

Each sm_90 instruction is 16 bytes; its opcode is the low 12 bits of the first 8 and its guard
predicate bits 12-15 (7 = none). The table below maps opcodes to mnemonics; it was learnt from
cuobjdump listings of the kernel suite (ptxas 13.0), so an opcode it does not know prints as ?xxx.
Per function: instructions up to its last EXIT (what bench/NOTES.md counts), how many are
predicated, and the count per mnemonic.
"""
import collections
import struct
import sys

OPCODES = {0x202: 'MOV', 0x207: 'SEL', 0x208: 'FSEL', 0x209: 'FMNMX', 0x20b: 'FSETP', 0x20c: 'ISETP', 0x210: 'IADD3', 0x211: 'LEA', 0x212: 'LOP3', 0x219: 'SHF', 0x220: 'FMUL', 0x221: 'FADD', 0x223: 'FFMA', 0x224: 'IMAD', 0x225: 'IMAD', 0x227: 'IMAD', 0x228: 'DMUL', 0x229: 'DADD', 0x22a: 'DSETP', 0x22b: 'DFMA', 0x230: 'HADD2', 0x23e: 'F2FP', 0x245: 'I2FP', 0x248: 'VIMNMX', 0x290: 'UIADD3', 0x291: 'ULEA', 0x2a4: 'UIMAD', 0x2bd: 'UFLO', 0x2bf: 'UPOPC', 0x300: 'FLO', 0x301: 'BREV', 0x302: 'FCHK', 0x305: 'F2I', 0x306: 'I2F', 0x307: 'FRND', 0x308: 'MUFU', 0x309: 'POPC', 0x310: 'F2F', 0x311: 'F2I', 0x312: 'I2F', 0x313: 'FRND', 0x31d: 'BAR', 0x348: 'WARPSYNC', 0x387: 'STL', 0x388: 'STS', 0x389: 'SHFL', 0x3c4: 'REDUX', 0x421: 'FADD', 0x423: 'FFMA', 0x424: 'IMAD', 0x429: 'DADD', 0x42a: 'DSETP', 0x42b: 'DFMA', 0x435: 'HFMA2', 0x446: 'VIADDMNMX', 0x589: 'SHFL', 0x5ab: 'CGAERRBAR', 0x802: 'MOV', 0x805: 'CS2R', 0x807: 'SEL', 0x808: 'FSEL', 0x809: 'FMNMX', 0x80b: 'FSETP', 0x80c: 'ISETP', 0x810: 'IADD3', 0x811: 'LEA', 0x812: 'LOP3', 0x816: 'PRMT', 0x819: 'SHF', 0x81c: 'PLOP3', 0x820: 'FMUL', 0x823: 'FFMA', 0x824: 'IMAD', 0x825: 'IMAD', 0x828: 'DMUL', 0x82b: 'DFMA', 0x836: 'VIADD', 0x848: 'VIMNMX', 0x882: 'UMOV', 0x886: 'VOTEU', 0x890: 'UIADD3', 0x902: 'FCHK', 0x906: 'I2F', 0x908: 'MUFU', 0x918: 'NOP', 0x919: 'S2R', 0x91b: 'ENDCOLLECTIVE', 0x941: 'BSYNC', 0x944: 'CALL', 0x945: 'BSSY', 0x946: 'YIELD', 0x947: 'BRA', 0x948: 'WARPSYNC', 0x94d: 'EXIT', 0x950: 'RET', 0x95c: 'BPT', 0x980: 'LD', 0x981: 'LDG', 0x983: 'LDL', 0x984: 'LDS', 0x986: 'STG', 0x988: 'STS', 0x989: 'SHFL', 0x98a: 'ATOM', 0x98e: 'REDG', 0x98f: 'CCTL', 0x992: 'MEMBAR', 0x9a8: 'ATOMG', 0x9ab: 'ERRBAR', 0x9c3: 'S2UR', 0xab9: 'ULDC', 0xb1d: 'BAR', 0xb82: 'LDC', 0xc02: 'MOV', 0xc0c: 'ISETP', 0xc0f: 'VIMNMX3', 0xc10: 'IADD3', 0xc11: 'LEA', 0xc12: 'LOP3', 0xc23: 'FFMA', 0xc24: 'IMAD', 0xc28: 'DMUL', 0xc2b: 'DFMA', 0xc36: 'VIADD', 0xc82: 'UMOV', 0xd00: 'FLO', 0xe24: 'IMAD', 0xe29: 'DADD', 0xe2b: 'DFMA', 0xf89: 'SHFL', 0xf8c: 'ATOMS'}


def sections(path):
    data = open(path, "rb").read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = headers[shstrndx]

    def name(offset):
        raw = data[names[4] + offset:]
        return raw[:raw.index(b"\0")].decode()

    return {name(h[0]): data[h[4]:h[4] + h[5]] for h in headers}


def functions(path):
    for section, body in sections(path).items():
        if not section.startswith(".text."):
            continue
        instructions = []
        for offset in range(0, len(body), 16):
            low, = struct.unpack_from("<Q", body, offset)
            instructions.append((OPCODES.get(low & 0xFFF, "?%03x" % (low & 0xFFF)), ((low >> 12) & 0xF) != 7))
        yield section[len(".text."):], instructions


def main(paths):
    for path in paths:
        for name, instructions in functions(path):
            end = max((i + 1 for i, (m, _) in enumerate(instructions) if m == "EXIT"), default=0)
            body = instructions[:end]
            counts = collections.Counter(m for m, _ in body)
            print("%s %s: %d instructions to the last EXIT, %d predicated" % (path, name[:40], len(body), sum(p for _, p in body)))
            print("   " + " ".join("%s:%d" % kv for kv in counts.most_common()))


if __name__ == "__main__":
    main(sys.argv[1:])
