import { describe, expect, it } from 'vitest';
import {
  AUDIT_ARCH_AARCH64,
  AUDIT_ARCH_X86_64,
  ENOSYS,
  EPERM,
  privilegeFilterBytes,
  privilegeFilterProgram,
  SECCOMP_RET_ALLOW,
  SECCOMP_RET_KILL_PROCESS,
  type Instruction,
} from '../../../electron/core/sandbox/seccomp-filter';

/**
 * A classic-BPF interpreter for the few opcodes a seccomp program uses,
 * run over the compiled program the sandbox loads — so aarch64 is checked
 * here too, where the machine cannot run it. (The x86_64 half is also
 * proven in the real sandbox: privilege.test.ts.)
 */
function run(program: Instruction[], data: { arch: number; nr: number; args?: number[] }): number {
  const word = (offset: number): number => {
    if (offset === 0) return data.nr >>> 0;
    if (offset === 4) return data.arch >>> 0;
    if (offset >= 16 && offset < 64 && offset % 8 === 0) return (data.args?.[(offset - 16) / 8] ?? 0) >>> 0;
    throw new Error(`load from unexpected offset ${offset}`);
  };
  let a = 0;
  for (let pc = 0; pc < program.length; pc += 1) {
    const { code, jt, jf, k } = program[pc]!;
    switch (code) {
      case 0x20:
        a = word(k);
        break;
      case 0x15:
        pc += a === k ? jt : jf;
        break;
      case 0x35:
        pc += a >= k ? jt : jf;
        break;
      case 0x45:
        pc += (a & k) !== 0 ? jt : jf;
        break;
      case 0x05:
        pc += k;
        break;
      case 0x06:
        return k;
      default:
        throw new Error(`unexpected opcode ${code.toString(16)} at ${pc}`);
    }
  }
  throw new Error('the program fell off its end');
}

const errno = (n: number) => (0x00050000 | n) >>> 0;
const program = privilegeFilterProgram();
const X86 = AUDIT_ARCH_X86_64;
const ARM = AUDIT_ARCH_AARCH64;
const O_CREAT = 0o100;
const O_TMPFILE = 0o20000000 | 0o200000;
const O_WRONLY = 1;

describe('the privilege filter (compiled seccomp program)', () => {
  it.each([
    // [label, arch, nr, args, verdict]
    ['x86_64 chmod u+s', X86, 90, [0, 0o4755], errno(EPERM)],
    ['x86_64 chmod g+s', X86, 90, [0, 0o2755], errno(EPERM)],
    ['x86_64 chmod 0755', X86, 90, [0, 0o755], SECCOMP_RET_ALLOW],
    ['x86_64 chmod sticky (not a privilege)', X86, 90, [0, 0o1777], SECCOMP_RET_ALLOW],
    ['x86_64 fchmod u+s', X86, 91, [3, 0o4755], errno(EPERM)],
    ['x86_64 fchmodat u+s', X86, 268, [-100, 0, 0o4755], errno(EPERM)],
    ['x86_64 fchmodat 0644', X86, 268, [-100, 0, 0o644], SECCOMP_RET_ALLOW],
    ['x86_64 fchmodat2 g+s', X86, 452, [-100, 0, 0o2755, 0], errno(EPERM)],
    ['x86_64 creat u+s', X86, 85, [0, 0o4755], errno(EPERM)],
    ['x86_64 mkdir g+s', X86, 83, [0, 0o2775], errno(EPERM)],
    ['x86_64 mkdirat g+s', X86, 258, [-100, 0, 0o2775], errno(EPERM)],
    ['x86_64 mkdirat 0755', X86, 258, [-100, 0, 0o755], SECCOMP_RET_ALLOW],
    ['x86_64 mknod u+s', X86, 133, [0, 0o104755, 0], errno(EPERM)],
    ['x86_64 mknodat u+s', X86, 259, [-100, 0, 0o104755, 0], errno(EPERM)],
    ['x86_64 open O_CREAT u+s', X86, 2, [0, O_CREAT | O_WRONLY, 0o4755], errno(EPERM)],
    ['x86_64 open O_CREAT 0644', X86, 2, [0, O_CREAT | O_WRONLY, 0o644], SECCOMP_RET_ALLOW],
    ['x86_64 open without O_CREAT ignores the mode word', X86, 2, [0, O_WRONLY, 0o4755], SECCOMP_RET_ALLOW],
    ['x86_64 openat O_CREAT u+s', X86, 257, [-100, 0, O_CREAT | O_WRONLY, 0o4755], errno(EPERM)],
    ['x86_64 openat O_TMPFILE g+s', X86, 257, [-100, 0, O_TMPFILE | O_WRONLY, 0o2755], errno(EPERM)],
    ['x86_64 openat plain read', X86, 257, [-100, 0, 0, 0], SECCOMP_RET_ALLOW],
    ['x86_64 openat2 (mode in a struct)', X86, 437, [], errno(ENOSYS)],
    ['x86_64 setxattr', X86, 188, [], errno(EPERM)],
    ['x86_64 lsetxattr', X86, 189, [], errno(EPERM)],
    ['x86_64 fsetxattr', X86, 190, [], errno(EPERM)],
    ['x86_64 setxattrat', X86, 463, [], errno(EPERM)],
    ['x86_64 io_uring_setup', X86, 425, [], errno(ENOSYS)],
    ['x86_64 x32 chmod', X86, 0x40000000 + 90, [0, 0o4755], errno(ENOSYS)],
    ['x86_64 read', X86, 0, [], SECCOMP_RET_ALLOW],
    ['x86_64 getxattr (reading is fine)', X86, 191, [], SECCOMP_RET_ALLOW],
    ['aarch64 fchmodat u+s', ARM, 53, [-100, 0, 0o4755], errno(EPERM)],
    ['aarch64 fchmod g+s', ARM, 52, [3, 0o2755], errno(EPERM)],
    ['aarch64 fchmodat2 u+s', ARM, 452, [-100, 0, 0o4755, 0], errno(EPERM)],
    ['aarch64 fchmodat 0755', ARM, 53, [-100, 0, 0o755], SECCOMP_RET_ALLOW],
    ['aarch64 openat O_CREAT u+s', ARM, 56, [-100, 0, O_CREAT | O_WRONLY, 0o4755], errno(EPERM)],
    ['aarch64 openat plain', ARM, 56, [-100, 0, 0, 0o4755], SECCOMP_RET_ALLOW],
    ['aarch64 mkdirat g+s', ARM, 34, [-100, 0, 0o2775], errno(EPERM)],
    ['aarch64 mknodat u+s', ARM, 33, [-100, 0, 0o104755, 0], errno(EPERM)],
    ['aarch64 setxattr', ARM, 5, [], errno(EPERM)],
    ['aarch64 lsetxattr', ARM, 6, [], errno(EPERM)],
    ['aarch64 fsetxattr', ARM, 7, [], errno(EPERM)],
    ['aarch64 setxattrat', ARM, 463, [], errno(EPERM)],
    ['aarch64 openat2', ARM, 437, [], errno(ENOSYS)],
    ['aarch64 io_uring_enter', ARM, 426, [], errno(ENOSYS)],
    // x86_64's chmod number is aarch64's something else: numbers are per architecture
    ['aarch64 nr 90 (capget, not chmod)', ARM, 90, [0, 0o4755], SECCOMP_RET_ALLOW],
    ['i386 compat call (unknown arch)', 0x40000003, 15, [0, 0o4755], SECCOMP_RET_KILL_PROCESS],
    ['arm32 compat call (unknown arch)', 0x40000028, 15, [], SECCOMP_RET_KILL_PROCESS],
  ])('%s', (_label, arch, nr, args, verdict) => {
    expect(run(program, { arch, nr, args })).toBe(verdict >>> 0);
  });

  it('serialises as struct sock_filter (8 bytes each) in host byte order', () => {
    const bytes = privilegeFilterBytes();
    expect(bytes.length).toBe(program.length * 8);
    expect(bytes.readUInt16LE(0)).toBe(program[0]!.code);
    expect(bytes.readUInt32LE(4)).toBe(program[0]!.k);
  });
});
