// What kind of machine code a file holds, read from its first bytes: the container format (ELF
// on Linux, PE on Windows, Mach-O on macOS) and the CPU it is built for. The release build uses it
// to prove that a release carries its target's binaries only.
import { PE_MACHINE, peMachine, peSubsystem, SUBSYSTEM } from './pe.ts';

/** A container format of executables and shared libraries. */
export type BinaryFormat = 'elf' | 'pe' | 'mach-o';

/** A CPU, named as Node's `process.arch` names it. */
type BinaryArchitecture = 'x64' | 'ia32' | 'arm64' | 'arm' | 'riscv64' | 'loong64' | 'ppc64';

/** What a binary file is. */
export interface BinaryKind {
  format: BinaryFormat;
  /** One CPU, or several for a macOS universal binary; `unknown (0x…)` for a CPU not listed. */
  architectures: Array<BinaryArchitecture | `unknown (0x${string})`>;
  /** PE only: the Windows subsystem (a GUI program opens no console window). */
  subsystem?: 'gui' | 'console' | `other (${number})`;
}

/** How many leading bytes {@link readBinaryKind} needs at most for the files we ship. */
export const BINARY_HEADER_BYTES = 64 * 1024;

const ELF_MACHINES: Readonly<Record<number, BinaryArchitecture>> = {
  3: 'ia32',
  40: 'arm',
  62: 'x64',
  21: 'ppc64',
  183: 'arm64',
  243: 'riscv64',
  258: 'loong64',
};

const PE_MACHINES: Readonly<Record<number, BinaryArchitecture>> = {
  [PE_MACHINE.ia32]: 'ia32',
  [PE_MACHINE.x64]: 'x64',
  [PE_MACHINE.arm]: 'arm',
  [PE_MACHINE.arm64]: 'arm64',
};

/** Mach-O CPU types: the family in the low bits, 0x01000000 for its 64-bit variant. */
const MACH_O_CPUS: Readonly<Record<number, BinaryArchitecture>> = {
  7: 'ia32',
  16777223: 'x64',
  12: 'arm',
  16777228: 'arm64',
};

function architecture(
  table: Readonly<Record<number, BinaryArchitecture>>,
  code: number,
): BinaryKind['architectures'][number] {
  return table[code] ?? `unknown (0x${code.toString(16)})`;
}

function elfKind(view: DataView): BinaryKind {
  // e_ident[EI_DATA] says the byte order of everything after e_ident; e_machine is at 18.
  const littleEndian = view.getUint8(5) !== 2;
  return {
    format: 'elf',
    architectures: [architecture(ELF_MACHINES, view.getUint16(18, littleEndian))],
  };
}

function peKind(head: Uint8Array): BinaryKind {
  const subsystem = peSubsystem(head);
  return {
    format: 'pe',
    architectures: [architecture(PE_MACHINES, peMachine(head))],
    subsystem:
      subsystem === SUBSYSTEM.gui
        ? 'gui'
        : subsystem === SUBSYSTEM.console
          ? 'console'
          : `other (${subsystem})`,
  };
}

/** A universal binary: a big-endian list of (cputype, cpusubtype, offset, size, align). */
function fatMachOKind(view: DataView): BinaryKind | undefined {
  const count = view.getUint32(4, false);
  // Java class files share the magic number; their "count" is a version number (45 and up).
  if (count === 0 || count > 20 || 8 + count * 20 > view.byteLength) return undefined;
  const architectures: BinaryKind['architectures'] = [];
  for (let index = 0; index < count; index++) {
    architectures.push(architecture(MACH_O_CPUS, view.getUint32(8 + index * 20, false)));
  }
  return { format: 'mach-o', architectures };
}

/**
 * The kind of binary `head` (a file's first bytes, up to {@link BINARY_HEADER_BYTES}) starts,
 * or undefined when it is not an ELF, PE or Mach-O file.
 *
 * @example
 * readBinaryKind(firstBytes('libvosk.dll')); // { format: 'pe', architectures: ['x64'], subsystem: 'console' }
 */
export function readBinaryKind(head: Uint8Array): BinaryKind | undefined {
  if (head.byteLength < 24) return undefined;
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const magic = view.getUint32(0, false);
  if (magic === 0x7f454c46) return elfKind(view);
  if (magic === 0xcafebabe) return fatMachOKind(view);
  // Thin Mach-O, as the file stores it on little-endian CPUs (feedface 32-bit, feedfacf 64-bit).
  if (magic === 0xcefaedfe || magic === 0xcffaedfe) {
    return {
      format: 'mach-o',
      architectures: [architecture(MACH_O_CPUS, view.getUint32(4, true))],
    };
  }
  if (view.getUint16(0, true) === 0x5a4d) {
    try {
      return peKind(head);
    } catch {
      // "MZ" and no PE header: a DOS program or text that happens to start with MZ.
      return undefined;
    }
  }
  return undefined;
}

/** How a release binary is described in the build's log and errors: `PE x64 (gui)`. */
export function describeBinaryKind(kind: BinaryKind | undefined): string {
  if (!kind) return 'no ELF, PE or Mach-O header';
  const format = { elf: 'ELF', pe: 'PE', 'mach-o': 'Mach-O' }[kind.format];
  return `${format} ${kind.architectures.join('+')}${kind.subsystem ? ` (${kind.subsystem})` : ''}`;
}
