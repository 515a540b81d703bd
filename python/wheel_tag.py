"""The platform tag a wheel carrying native ELF files may claim (PEP 600), read from the files.

manylinux_2_N_ARCH says: runs wherever glibc is 2.N or newer. That holds when the files need no
glibc symbol version above 2.N, no libstdc++ symbol versions newer than the oldest manylinux_2_28
system has (GCC 8: GLIBCXX_3.4.25, CXXABI_1.3.11), and no shared library beyond glibc's own,
libgcc_s and libstdc++ (or the files themselves). Otherwise the tag is linux_ARCH, which pip installs
only where it was built. The versions are read with `objdump -T` / `objdump -p` (binutils).
"""
import os
import platform
import re
import subprocess
import sys

# Libraries every glibc system has (PEP 600 / auditwheel's manylinux policy, the part that matters here).
SYSTEM_LIBS = {
    "libc.so.6", "libm.so.6", "libdl.so.2", "librt.so.1", "libpthread.so.0", "libgcc_s.so.1",
    "libstdc++.so.6", "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1",
}
MIN_GLIBC = (2, 28)  # the oldest tag claimed: AlmaLinux/RHEL 8, the manylinux_2_28 base
MAX_GLIBCXX = (3, 4, 25)
MAX_CXXABI = (1, 3, 11)


def _version(text):
    return tuple(int(x) for x in text.split("."))


def requirements(path):
    """(glibc, glibcxx, cxxabi, needed libs) of one ELF file; versions are tuples, () when none."""
    dyn = subprocess.run(["objdump", "-T", path], capture_output=True, text=True)
    # A static executable has no dynamic symbol table: objdump says so and needs nothing.
    text = dyn.stdout if dyn.returncode == 0 else ""
    def highest(prefix):
        found = [_version(v) for v in re.findall(r"\b" + prefix + r"_([0-9.]+)\b", text)]
        return max(found, default=())
    needed = re.findall(r"^\s*NEEDED\s+(\S+)", subprocess.run(
        ["objdump", "-p", path], capture_output=True, text=True).stdout, re.M)
    return highest("GLIBC"), highest("GLIBCXX"), highest("CXXABI"), set(needed)


def soname(path):
    """The name a shared library is loaded by (its DT_SONAME), or None."""
    out = subprocess.run(["objdump", "-p", path], capture_output=True, text=True).stdout
    found = re.search(r"^\s*SONAME\s+(\S+)", out, re.M)
    return found.group(1) if found else None


def platform_tag(paths):
    arch = platform.machine()
    linux = f"linux_{arch}"
    names = {os.path.basename(p) for p in paths}
    glibc = MIN_GLIBC
    for p in paths:
        try:
            g, gxx, abi, needed = requirements(p)
        except OSError:  # no objdump: nothing can be claimed
            return linux
        if gxx > MAX_GLIBCXX or abi > MAX_CXXABI or needed - SYSTEM_LIBS - names:
            return linux
        glibc = max(glibc, g)
    return f"manylinux_{glibc[0]}_{glibc[1]}_{arch}"


if __name__ == "__main__":
    print(platform_tag(sys.argv[1:]))
