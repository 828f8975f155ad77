// The SM clock stamp of the CUDA measurement protocol (nvbench's
// timestamps_kernel): writes %globaltimer (ns) and clock64() (SM cycles) to
// out[2 * slot] and out[2 * slot + 1]. Recorded before and after the timed
// work, the two stamps give the SM clock of the sample: delta cycles / delta
// ns.
//
// clock64() counts per SM and the counters of different SMs are not in step,
// so both stamps of a sample must come from the same SM. The kernel is
// launched with one single-thread block per SM and only a block that runs on
// SM 0 writes: the scheduler places blocks freely, so a lone block would
// land on any SM. When no block ran on SM 0 nothing is written; the harness
// clears the slots before each sample so that such a sample reads as "no
// clock" rather than the previous sample's stamps. The PTX is checked in
// (clock_stamp.ptx, made by regenerate.sh) because GPU hosts have no nvcc.
extern "C" __global__ void kb_clock_stamp(unsigned long long *out,
                                          unsigned int slot) {
  unsigned int smid;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  if (smid != 0)
    return;
  unsigned long long ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  out[2 * slot] = ns;
  out[2 * slot + 1] = clock64();
}
