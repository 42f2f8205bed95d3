// The seccomp filter every sandboxed run gets (bwrap --seccomp): it refuses ptrace and the
// process_vm_* calls with EPERM. Without it, a program could ptrace the sandbox's init (pid 1,
// same uid) and stall the run until the wall timeout, or read/write another process's memory.
// It also refuses what outlives a run's processes or reaches past them (issue #36's review,
// each an attack that worked): pidfd_getfd (a copy of another process's descriptor: bwrap's init
// holds Node's result channel, so a candidate could write lines past the supervisor), the kernel
// keyrings (add_key, request_key, keyctl: a key in the user keyring of the uid every run shares
// outlives the run, a channel between runs) and POSIX message queues (mq_open: a queue outlives
// the processes of a grade's public phase into its held-out phase). Nothing a QuixBugs program,
// pytest or the trusted runner does needs them.
// Hand-written on purpose: it is a dozen classic-BPF instructions, and a library (libseccomp)
// would be a native dependency for that. Layout: struct sock_filter { u16 code; u8 jt; u8 jf;
// u32 k; }, little-endian on both supported machines.
import { arch } from "node:process";

const BPF_LD_W_ABS = 0x20;
const BPF_JEQ_K = 0x15;
const BPF_JGE_K = 0x35;
const BPF_RET_K = 0x06;
const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO_EPERM = 0x00050000 | 1;
/** Offsets in struct seccomp_data. */
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
/** x32 syscalls on x86_64 have this bit set; refused wholesale (nothing here uses them). */
const X32_SYSCALL_BIT = 0x40000000;

interface MachineSyscalls {
  readonly auditArch: number;
  readonly denied: Readonly<Record<string, number>>;
}

/** Syscall numbers from the kernel's tables (arch/x86/entry/syscalls, include/uapi/asm-generic). */
const MACHINES: Readonly<Record<string, MachineSyscalls>> = {
  x64: {
    auditArch: 0xc000003e,
    denied: {
      ptrace: 101,
      process_vm_readv: 310,
      process_vm_writev: 311,
      pidfd_getfd: 438,
      add_key: 248,
      request_key: 249,
      keyctl: 250,
      mq_open: 240,
    },
  },
  arm64: {
    auditArch: 0xc00000b7,
    denied: {
      ptrace: 117,
      process_vm_readv: 270,
      process_vm_writev: 271,
      pidfd_getfd: 438,
      add_key: 217,
      request_key: 218,
      keyctl: 219,
      mq_open: 180,
    },
  },
};

export const SECCOMP_DENIED_SYSCALLS = [
  "ptrace",
  "process_vm_readv",
  "process_vm_writev",
  "pidfd_getfd",
  "add_key",
  "request_key",
  "keyctl",
  "mq_open",
] as const;

function instruction(code: number, jt: number, jf: number, k: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeUInt16LE(code, 0);
  b.writeUInt8(jt, 2);
  b.writeUInt8(jf, 3);
  b.writeUInt32LE(k >>> 0, 4);
  return b;
}

/** The compiled filter for this machine, or undefined where no syscall table is known. */
export function seccompFilterBytes(machine: string = arch): Buffer | undefined {
  const m = MACHINES[machine];
  if (!m) return undefined;
  const numbers = SECCOMP_DENIED_SYSCALLS.map((name) => m.denied[name] ?? -1);
  // 0 ld arch; 1 jeq arch (else deny); 2 ld nr; 3 jge x32 → deny; 4.. jeq nr → deny; allow; deny.
  const body: Buffer[] = [];
  const total = 4 + numbers.length + 2;
  const denyIndex = total - 1;
  const jumpTo = (from: number, to: number): number => to - from - 1;
  body.push(instruction(BPF_LD_W_ABS, 0, 0, OFFSET_ARCH));
  body.push(instruction(BPF_JEQ_K, 0, jumpTo(1, denyIndex), m.auditArch));
  body.push(instruction(BPF_LD_W_ABS, 0, 0, OFFSET_NR));
  body.push(instruction(BPF_JGE_K, jumpTo(3, denyIndex), 0, X32_SYSCALL_BIT));
  numbers.forEach((nr, i) => body.push(instruction(BPF_JEQ_K, jumpTo(4 + i, denyIndex), 0, nr)));
  body.push(instruction(BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW));
  body.push(instruction(BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO_EPERM));
  return Buffer.concat(body);
}
