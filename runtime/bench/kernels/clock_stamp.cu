// The SM clock stamp of the CUDA measurement protocol (nvbench's
// timestamps_kernel): writes %globaltimer (ns) and clock64() (SM cycles) to
// out[2 * slot] and out[2 * slot + 1]. Recorded before and after the timed
// work, the two stamps give the SM clock of the sample: delta cycles / delta
// ns. One thread; the PTX is checked in (clock_stamp.ptx, made by
// regenerate.sh) because GPU hosts have no nvcc.
extern "C" __global__ void kb_clock_stamp(unsigned long long *out,
                                          unsigned int slot) {
  unsigned long long ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  out[2 * slot] = ns;
  out[2 * slot + 1] = clock64();
}
