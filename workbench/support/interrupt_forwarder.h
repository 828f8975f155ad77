//===- workbench/support/interrupt_forwarder.h - Ctrl-C reaches the tools -===//
//
// Ctrl-C, SIGTERM and SIGHUP while a build runs. Every tool leads its own
// process group (common/process.h), so the terminal's SIGINT reaches only
// us: without forwarding, nvcc and cicc would keep running after we exit.
//
// SIGINT, SIGTERM and SIGHUP are blocked in this thread (and so in the workers
// started after it; tools get an empty mask from the process runner) and a
// waiter thread takes them with sigtimedwait. On the first one it sends the
// same signal to every tool's process group, and keeps re-sending it every
// few milliseconds until the build is done, so a tool spawned just after
// the signal (between steps, or before its group was registered) is stopped
// too; tools still alive after kGrace get SIGKILL, and a second signal
// sends SIGKILL at once. No async-signal-safety concerns: the waiter is an
// ordinary thread.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_SUPPORT_INTERRUPT_FORWARDER_H_
#define KB_WORKBENCH_SUPPORT_INTERRUPT_FORWARDER_H_

#include <atomic>
#include <chrono>
#include <csignal>
#include <string>
#include <thread>

namespace kb::workbench {

/// Forwards SIGINT/SIGTERM/SIGHUP to every tool from construction to
/// destruction, which restores the signal mask.
class InterruptForwarder {
public:
  InterruptForwarder();
  ~InterruptForwarder();
  InterruptForwarder(const InterruptForwarder &) = delete;
  InterruptForwarder &operator=(const InterruptForwarder &) = delete;

  /// The signal that interrupted the build; 0 when none did. Forwarders
  /// alive at once (`tune` builds the next batch while it measures this
  /// one) see the same signal, whichever of their waiters took it.
  int signal() const { return received_.load(); }

  /// The signal that interrupted us, waiting up to |patience| for one on
  /// its way; 0 when none came or no forwarder is alive. A child killed by
  /// SIGINT may be reaped before the waiter thread has taken the same
  /// Ctrl-C (a child forked just then is still in our process group, so
  /// the terminal's signal reaches it too, and on a loaded machine our
  /// waiter may run later than the thread that reaps it): whoever reads
  /// such a death asks here first, so it counts as the interrupt.
  static int awaitSignal(std::chrono::milliseconds patience);

  /// What a child's death by |childSignal| means: for SIGINT, SIGTERM or
  /// SIGHUP, the interrupt that reached it too, once a forwarder alive here
  /// has taken it (awaitSignal, at most 2 s); 0 at once for any other
  /// signal (a crash is the child's own failure), for a child we killed
  /// ourselves at its time limit (|timedOut|: SIGTERM from the process
  /// runner), or when no interrupt came. Every place that reaps a tool or a
  /// worker asks here before it judges the death, so a Ctrl-C reads as the
  /// interrupt (exit 130), not a failure.
  static int signalBehindChildDeath(int childSignal, bool timedOut);

private:
  static constexpr std::chrono::milliseconds kGrace{2000};

  void wait();

  sigset_t signals_;
  sigset_t previousMask_;
  std::atomic<bool> done_{false};
  std::thread waiter_;
  /// Shared by the forwarders alive at once; reset when the first of them
  /// starts.
  static std::atomic<int> received_;
  static std::atomic<int> alive_;
};

/// "SIGINT (Ctrl-C)" / "SIGTERM".
std::string signalName(int signal);

} // namespace kb::workbench

#endif // KB_WORKBENCH_SUPPORT_INTERRUPT_FORWARDER_H_
