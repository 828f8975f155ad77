//===- workbench/support/interrupt_forwarder.cpp - Ctrl-C reaches the -----===//
#include "workbench/support/interrupt_forwarder.h"

#include "common/process.h"

#include <cstring>

#include <pthread.h>

namespace kb::workbench {

std::atomic<int> InterruptForwarder::received_{0};
std::atomic<int> InterruptForwarder::alive_{0};

InterruptForwarder::InterruptForwarder() {
  if (alive_.fetch_add(1) == 0)
    received_ = 0;
  sigemptyset(&signals_);
  sigaddset(&signals_, SIGINT);
  sigaddset(&signals_, SIGTERM);
  // A closed terminal or ssh session: stop like SIGTERM (the tools would
  // otherwise keep running without a timeout).
  sigaddset(&signals_, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &signals_, &previousMask_);
  waiter_ = std::thread([this] { wait(); });
}

InterruptForwarder::~InterruptForwarder() {
  done_ = true;
  waiter_.join();
  pthread_sigmask(SIG_SETMASK, &previousMask_, nullptr);
  alive_.fetch_sub(1);
}

void InterruptForwarder::wait() {
  const timespec poll = {0, 10 * 1000 * 1000};
  std::chrono::steady_clock::time_point first;
  bool killed = false;
  while (!done_) {
    int got = sigtimedwait(&signals_, nullptr, &poll);
    auto now = std::chrono::steady_clock::now();
    int expected = 0;
    if (got > 0 && received_.compare_exchange_strong(expected, got)) {
      first = now;
    } else if (got > 0) {
      killed = true; // A second signal: no more patience.
    }
    int received = received_.load();
    if (received == 0)
      continue;
    if (first == std::chrono::steady_clock::time_point())
      first = now; // Taken by another forwarder's waiter.
    if (!killed && now - first >= kGrace)
      killed = true;
    kb::signalAllProcessGroups(killed ? SIGKILL : received);
  }
}

int InterruptForwarder::awaitSignal(std::chrono::milliseconds patience) {
  auto deadline = std::chrono::steady_clock::now() + patience;
  while (alive_.load() > 0 && received_.load() == 0 &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return alive_.load() > 0 ? received_.load() : 0;
}

int InterruptForwarder::signalBehindChildDeath(int childSignal, bool timedOut) {
  if (timedOut || (childSignal != SIGINT && childSignal != SIGTERM &&
                   childSignal != SIGHUP))
    return 0;
  return awaitSignal(std::chrono::seconds(2));
}

std::string signalName(int signal) {
  if (signal == SIGINT)
    return "SIGINT (Ctrl-C)";
  const char *abbrev = ::sigabbrev_np(signal);
  return abbrev ? std::string("SIG") + abbrev
                : "signal " + std::to_string(signal);
}

} // namespace kb::workbench
