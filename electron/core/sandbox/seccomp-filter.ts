/**
 * The seccomp program that keeps a server from creating privilege in files:
 * no setuid or setgid bit and no file capability, whatever it writes and
 * wherever. bubblewrap loads it (`--seccomp FD`) just before it runs the
 * command, so it holds for the server and everything it starts, in every
 * namespace it could make (seccomp filters are inherited and cannot be
 * removed). sandbox-runtime's own helper stacks its Unix-socket filter on top.
 *
 * Why a filter and not only ownership: with Airlock running as root, a file a
 * server writes in a granted folder belongs to real root on the host, and its
 * owner may always `chmod u+s` it — a setuid-root program any local user can
 * run. Dropping capabilities stops `setcap`, but not an owner's chmod.
 *
 * What it refuses (EPERM unless noted), on x86_64 and aarch64:
 *   - chmod, fchmod, fchmodat, fchmodat2 with S_ISUID or S_ISGID in the mode;
 *   - open, openat, creat that create a file (O_CREAT or O_TMPFILE) with them;
 *   - mkdir, mkdirat, mknod, mknodat with them;
 *   - setxattr, lsetxattr, fsetxattr, setxattrat, all names (a filter cannot
 *     read the name, and `security.capability` is the one that matters);
 *   - openat2 (ENOSYS: its mode sits in a struct the filter cannot read; libc
 *     falls back to openat) and io_uring (ENOSYS: its operations would bypass
 *     every check above; libuv falls back to the thread pool);
 *   - every x32 system call on x86_64 (ENOSYS), and any other architecture
 *     (i386, arm32 compat): the process is killed.
 */
import { endianness } from 'node:os';

/** Architecture tokens from <linux/audit.h>: EM_* | __AUDIT_ARCH_64BIT | __AUDIT_ARCH_LE. */
export const AUDIT_ARCH_X86_64 = 0xc000003e;
export const AUDIT_ARCH_AARCH64 = 0xc00000b7;

/** seccomp return values (<linux/seccomp.h>). */
export const SECCOMP_RET_KILL_PROCESS = 0x80000000;
export const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
export const EPERM = 1;
export const ENOSYS = 38;

/** Mode bits that carry privilege (S_ISUID | S_ISGID). */
export const PRIVILEGE_BITS = 0o6000;
/** open(2) flags that create a file: O_CREAT and __O_TMPFILE (same on both architectures). */
const CREATING_FLAGS = 0o100 | 0o20000000;
/** x32 system calls on x86_64 carry this bit in their number. */
const X32_SYSCALL_BIT = 0x40000000;

/** Where a call's arguments are: which one is the mode, and which the open flags. */
type Check =
  | { kind: 'mode'; mode: number }
  | { kind: 'open'; flags: number; mode: number }
  | { kind: 'refuse'; errno: number };

interface ArchTable {
  arch: number;
  calls: Array<[number, Check]>;
}

const mode = (index: number): Check => ({ kind: 'mode', mode: index });
const open = (flags: number, modeIndex: number): Check => ({ kind: 'open', flags, mode: modeIndex });
const refuse = (errno: number): Check => ({ kind: 'refuse', errno });

/** System call numbers from the kernel's tables (asm/unistd_64.h; asm-generic/unistd.h for aarch64). */
export const ARCH_TABLES: readonly ArchTable[] = [
  {
    arch: AUDIT_ARCH_X86_64,
    calls: [
      [90, mode(1)], // chmod(path, mode)
      [91, mode(1)], // fchmod(fd, mode)
      [268, mode(2)], // fchmodat(dfd, path, mode)
      [452, mode(2)], // fchmodat2(dfd, path, mode, flags)
      [85, mode(1)], // creat(path, mode)
      [83, mode(1)], // mkdir(path, mode)
      [258, mode(2)], // mkdirat(dfd, path, mode)
      [133, mode(1)], // mknod(path, mode, dev)
      [259, mode(2)], // mknodat(dfd, path, mode, dev)
      [2, open(1, 2)], // open(path, flags, mode)
      [257, open(2, 3)], // openat(dfd, path, flags, mode)
      [437, refuse(ENOSYS)], // openat2: the mode is in a struct
      [188, refuse(EPERM)], // setxattr
      [189, refuse(EPERM)], // lsetxattr
      [190, refuse(EPERM)], // fsetxattr
      [463, refuse(EPERM)], // setxattrat
      [425, refuse(ENOSYS)], // io_uring_setup
      [426, refuse(ENOSYS)], // io_uring_enter
      [427, refuse(ENOSYS)], // io_uring_register
    ],
  },
  {
    arch: AUDIT_ARCH_AARCH64,
    calls: [
      [52, mode(1)], // fchmod
      [53, mode(2)], // fchmodat
      [452, mode(2)], // fchmodat2
      [34, mode(2)], // mkdirat
      [33, mode(2)], // mknodat
      [56, open(2, 3)], // openat
      [437, refuse(ENOSYS)], // openat2
      [5, refuse(EPERM)], // setxattr
      [6, refuse(EPERM)], // lsetxattr
      [7, refuse(EPERM)], // fsetxattr
      [463, refuse(EPERM)], // setxattrat
      [425, refuse(ENOSYS)], // io_uring_setup
      [426, refuse(ENOSYS)], // io_uring_enter
      [427, refuse(ENOSYS)], // io_uring_register
    ],
  },
];

// Classic BPF opcodes (<linux/bpf_common.h>).
const LD_W_ABS = 0x20;
const JMP_JEQ_K = 0x15;
const JMP_JGE_K = 0x35;
const JMP_JSET_K = 0x45;
const JMP_JA = 0x05;
const RET_K = 0x06;

/** Offsets in `struct seccomp_data`: nr, arch, then six 64-bit args (low word first: both targets are little-endian). */
const NR = 0;
const ARCH = 4;
const argLow = (index: number) => 16 + 8 * index;

/** One instruction; jumps name labels and are resolved when the program is assembled. */
type Op =
  | { op: 'ld'; offset: number }
  | { op: 'jeq' | 'jge' | 'jset'; k: number; then: string; else?: string }
  | { op: 'ja'; to: string }
  | { op: 'ret'; k: number }
  | { op: 'label'; name: string };

/** A compiled filter: the instructions as `struct sock_filter` values. */
export interface Instruction {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

function assemble(ops: Op[]): Instruction[] {
  const labels = new Map<string, number>();
  let index = 0;
  for (const op of ops) {
    if (op.op === 'label') labels.set(op.name, index);
    else index += 1;
  }
  const out: Instruction[] = [];
  const offsetTo = (label: string | undefined, at: number): number => {
    if (label === undefined) return 0; // fall through to the next instruction
    const target = labels.get(label);
    if (target === undefined) throw new Error(`seccomp filter: unknown label ${label}`);
    const offset = target - at - 1;
    if (offset < 0 || offset > 255) throw new Error(`seccomp filter: jump to ${label} out of range (${offset})`);
    return offset;
  };
  for (const op of ops) {
    const at = out.length;
    switch (op.op) {
      case 'label':
        break;
      case 'ld':
        out.push({ code: LD_W_ABS, jt: 0, jf: 0, k: op.offset });
        break;
      case 'ret':
        out.push({ code: RET_K, jt: 0, jf: 0, k: op.k >>> 0 });
        break;
      case 'ja': {
        const target = labels.get(op.to);
        if (target === undefined) throw new Error(`seccomp filter: unknown label ${op.to}`);
        if (target - at - 1 < 0) throw new Error(`seccomp filter: backward jump to ${op.to}`);
        out.push({ code: JMP_JA, jt: 0, jf: 0, k: target - at - 1 });
        break;
      }
      default: {
        const code = op.op === 'jeq' ? JMP_JEQ_K : op.op === 'jge' ? JMP_JGE_K : JMP_JSET_K;
        out.push({ code, jt: offsetTo(op.then, at), jf: offsetTo(op.else, at), k: op.k >>> 0 });
      }
    }
  }
  return out;
}

/** The program as instructions (for tests and for `privilegeFilterBytes`). */
export function privilegeFilterProgram(): Instruction[] {
  const ops: Op[] = [{ op: 'ld', offset: ARCH }];
  ARCH_TABLES.forEach((table, i) => ops.push({ op: 'jeq', k: table.arch, then: `arch${i}` }));
  // SECURITY (invariant 5): an architecture this table does not know (i386 or
  // arm32 compat calls) has other numbers; nothing is let through unchecked.
  ops.push({ op: 'ret', k: SECCOMP_RET_KILL_PROCESS });
  ARCH_TABLES.forEach((table, i) => {
    ops.push({ op: 'label', name: `arch${i}` }, { op: 'ld', offset: NR });
    if (table.arch === AUDIT_ARCH_X86_64) ops.push({ op: 'jge', k: X32_SYSCALL_BIT, then: 'enosys' });
    table.calls.forEach(([nr, check], j) => {
      const target =
        check.kind === 'refuse' ? (check.errno === EPERM ? 'eperm' : 'enosys') : `check${i}_${j}`;
      ops.push({ op: 'jeq', k: nr, then: target });
    });
    ops.push({ op: 'ja', to: 'allow' });
    table.calls.forEach(([, check], j) => {
      if (check.kind === 'refuse') return;
      ops.push({ op: 'label', name: `check${i}_${j}` });
      if (check.kind === 'open') {
        ops.push({ op: 'ld', offset: argLow(check.flags) }, { op: 'jset', k: CREATING_FLAGS, then: `mode${i}_${j}` });
        ops.push({ op: 'ja', to: 'allow' });
        ops.push({ op: 'label', name: `mode${i}_${j}` });
      }
      ops.push({ op: 'ld', offset: argLow(check.mode) }, { op: 'jset', k: PRIVILEGE_BITS, then: 'eperm' });
      ops.push({ op: 'ja', to: 'allow' });
    });
  });
  // Classic BPF jumps only go forward: the shared verdicts come last.
  ops.push({ op: 'label', name: 'allow' }, { op: 'ret', k: SECCOMP_RET_ALLOW });
  ops.push({ op: 'label', name: 'eperm' }, { op: 'ret', k: SECCOMP_RET_ERRNO | EPERM });
  ops.push({ op: 'label', name: 'enosys' }, { op: 'ret', k: SECCOMP_RET_ERRNO | ENOSYS });
  return assemble(ops);
}

/** The program as bwrap reads it from `--seccomp FD`: an array of `struct sock_filter` in host byte order. */
export function privilegeFilterBytes(): Buffer {
  const program = privilegeFilterProgram();
  const bytes = Buffer.alloc(program.length * 8);
  const little = endianness() === 'LE';
  program.forEach((ins, i) => {
    const at = i * 8;
    if (little) {
      bytes.writeUInt16LE(ins.code, at);
      bytes.writeUInt32LE(ins.k, at + 4);
    } else {
      bytes.writeUInt16BE(ins.code, at);
      bytes.writeUInt32BE(ins.k, at + 4);
    }
    bytes.writeUInt8(ins.jt, at + 2);
    bytes.writeUInt8(ins.jf, at + 3);
  });
  return bytes;
}
