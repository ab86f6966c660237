#!/usr/bin/env python3
"""SASS instruction counts of a cubin without cuobjdump (sm_90: 16-byte instructions).

    bench/ptx/sass_count.py K7.cubin [--map DIR_OR_SASS ...] [--func NAME] [--skip N]

Opcode names: the low 12 bits of each instruction's first word name its opcode; BUILTIN holds
those seen in cuobjdump listings of sm_90 code, and listings given with --map (`*.sass`, files or
directories; the device runs write ptx/K*.sass, ptx/twins.sass; default bench/results/*/ptx) add to
it. The counts need no names; an unknown opcode prints as ?xyz. For each kernel it prints three counts:
  to last EXIT   every instruction up to the last EXIT (out-of-line slow paths after it excluded)
  to first EXIT  up to the first unconditional EXIT (the 4-per-thread entry's vector path)
  executed       the instructions run from the start to the first unconditional EXIT when every
                 forward conditional branch over at most N instructions (--skip, 100) is taken,
                 i.e. the short slow blocks (exp's |x| >= 708, log's specials, rcp's slow call)
                 are skipped, and longer ones (the entry's scalar fallback) are not. That fits
                 vyre's code, where a slow block follows the branch that skips it; nvcc's code
                 may branch into its slow blocks instead (count those listings by hand)
and the opcode histogram of the executed path (DP = D* opcodes: DFMA, DADD, DMUL, DSETP...).
Build the cubin with `ptxas -arch=sm_90 -O3 K7.ptx -o K7.cubin` (vyre-bench-ptx leaves one per kernel).
"""
import argparse
import collections
import glob
import os
import re
import struct

# Opcode names (low 12 bits of the first word) from the cuobjdump listings of the 2026-11-27 H200
# run (sm_90, CUDA 13); --map adds or overrides.
BUILTIN = {
    0x202: 'MOV', 0x207: 'SEL', 0x208: 'FSEL', 0x209: 'FMNMX', 0x20b: 'FSETP', 0x20c: 'ISETP',
    0x210: 'IADD3', 0x211: 'LEA', 0x212: 'LOP3', 0x219: 'SHF', 0x220: 'FMUL', 0x221: 'FADD',
    0x223: 'FFMA', 0x224: 'IMAD', 0x225: 'IMAD', 0x227: 'IMAD', 0x228: 'DMUL', 0x229: 'DADD',
    0x22a: 'DSETP', 0x22b: 'DFMA', 0x230: 'HADD2', 0x23e: 'F2FP', 0x245: 'I2FP', 0x248: 'VIMNMX',
    0x290: 'UIADD3', 0x291: 'ULEA', 0x2a4: 'UIMAD', 0x2bd: 'UFLO', 0x2bf: 'UPOPC', 0x300: 'FLO',
    0x301: 'BREV', 0x302: 'FCHK', 0x305: 'F2I', 0x306: 'I2F', 0x307: 'FRND', 0x308: 'MUFU',
    0x309: 'POPC', 0x310: 'F2F', 0x311: 'F2I', 0x312: 'I2F', 0x313: 'FRND', 0x31d: 'BAR',
    0x348: 'WARPSYNC', 0x387: 'STL', 0x388: 'STS', 0x389: 'SHFL', 0x3c4: 'REDUX', 0x421: 'FADD',
    0x423: 'FFMA', 0x424: 'IMAD', 0x429: 'DADD', 0x42a: 'DSETP', 0x42b: 'DFMA', 0x435: 'HFMA2',
    0x446: 'VIADDMNMX', 0x589: 'SHFL', 0x5ab: 'CGAERRBAR', 0x802: 'MOV', 0x805: 'CS2R',
    0x807: 'SEL', 0x808: 'FSEL', 0x809: 'FMNMX', 0x80b: 'FSETP', 0x80c: 'ISETP', 0x810: 'IADD3',
    0x811: 'LEA', 0x812: 'LOP3', 0x816: 'PRMT', 0x819: 'SHF', 0x81c: 'PLOP3', 0x820: 'FMUL',
    0x823: 'FFMA', 0x824: 'IMAD', 0x825: 'IMAD', 0x828: 'DMUL', 0x82b: 'DFMA', 0x836: 'VIADD',
    0x848: 'VIMNMX', 0x882: 'UMOV', 0x886: 'VOTEU', 0x890: 'UIADD3', 0x902: 'FCHK', 0x906: 'I2F',
    0x908: 'MUFU', 0x918: 'NOP', 0x919: 'S2R', 0x91b: 'ENDCOLLECTIVE', 0x941: 'BSYNC',
    0x944: 'CALL', 0x945: 'BSSY', 0x946: 'YIELD', 0x947: 'BRA', 0x948: 'WARPSYNC', 0x94d: 'EXIT',
    0x950: 'RET', 0x95c: 'BPT', 0x980: 'LD', 0x981: 'LDG', 0x983: 'LDL', 0x984: 'LDS',
    0x986: 'STG', 0x988: 'STS', 0x989: 'SHFL', 0x98a: 'ATOM', 0x98e: 'REDG', 0x98f: 'CCTL',
    0x992: 'MEMBAR', 0x9a8: 'ATOMG', 0x9ab: 'ERRBAR', 0x9c3: 'S2UR', 0xab9: 'ULDC', 0xb1d: 'BAR',
    0xb82: 'LDC', 0xc02: 'MOV', 0xc0c: 'ISETP', 0xc0f: 'VIMNMX3', 0xc10: 'IADD3', 0xc11: 'LEA',
    0xc12: 'LOP3', 0xc23: 'FFMA', 0xc24: 'IMAD', 0xc28: 'DMUL', 0xc2b: 'DFMA', 0xc36: 'VIADD',
    0xc82: 'UMOV', 0xd00: 'FLO', 0xe24: 'IMAD', 0xe29: 'DADD', 0xe2b: 'DFMA', 0xf89: 'SHFL',
    0xf8c: 'ATOMS',
}

LINE = re.compile(r'/\*[0-9a-f]{4,}\*/\s+(@!?U?P\w+\s+)?([A-Z0-9_.]+)[^;]*;\s*/\*\s*0x([0-9a-f]{16})\s*\*/')


def opcode_map(sources):
    names = collections.defaultdict(collections.Counter)
    for k, v in BUILTIN.items():
        names[k][v] += 1
    for src in sources:
        files = glob.glob(os.path.join(src, '*.sass')) if os.path.isdir(src) else [src]
        for path in files:
            with open(path, errors='replace') as f:
                for line in f:
                    m = LINE.search(line)
                    if m:
                        names[int(m.group(3), 16) & 0xfff][m.group(2).split('.')[0]] += 1
    return {k: v.most_common(1)[0][0] for k, v in names.items()}


def sections(path):
    data = open(path, 'rb').read()
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)
    headers = [struct.unpack_from('<IIQQQQIIQQ', data, shoff + i * shentsize) for i in range(shnum)]
    strtab = headers[shstrndx][4]
    for h in headers:
        name = data[strtab + h[0]:data.index(b'\0', strtab + h[0])].decode()
        yield name, data[h[4]:h[4] + h[5]]


def decode(blob, ops):
    out = []
    for i in range(0, len(blob), 16):
        lo, = struct.unpack_from('<q', blob, i)
        name = ops.get(lo & 0xfff, '?%03x' % (lo & 0xfff))
        if name == 'EXIT' and (lo & 0xffff) == 0x794d:
            name = 'EXIT!'  # unconditional
        out.append((name, lo))
    return out


def executed(ins, skip):
    pc, path = 0, []
    while pc < len(ins) and len(path) < 1_000_000:
        name, lo = ins[pc]
        path.append(name)
        if name == 'EXIT!':
            break
        if name == 'BRA':
            off = ((((lo >> 16) & 0xff) << 2) | ((lo >> 34) << 10)) // 16
            if (lo >> 12) & 0xf == 7 or 0 < off <= skip:
                pc += 1 + off
                continue
        pc += 1
    return path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('cubin', nargs='+')
    ap.add_argument('--map', action='append')
    ap.add_argument('--func')
    ap.add_argument('--skip', type=int, default=100)
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ops = opcode_map(a.map or glob.glob(os.path.join(root, 'bench/results/*/ptx')))
    for path in a.cubin:
        for name, blob in sections(path):
            if not name.startswith('.text.') or (a.func and name[6:] != a.func):
                continue
            ins = decode(blob, ops)
            names = [n for n, _ in ins]
            last = max(i for i, n in enumerate(names) if n.startswith('EXIT')) + 1
            first = names.index('EXIT!') + 1 if 'EXIT!' in names else last
            run = collections.Counter(executed(ins, a.skip))
            total = sum(run.values())
            dp = sum(v for k, v in run.items() if k.startswith('D'))
            print(f'{path} {name[6:]}: to last EXIT {last}, to first EXIT {first}, executed {total} '
                  f'(DP {dp}): ' + ', '.join(f'{k} {v}' for k, v in run.most_common()))


if __name__ == '__main__':
    main()
