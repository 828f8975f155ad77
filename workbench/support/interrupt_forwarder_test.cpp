//===- workbench/support/interrupt_forwarder_test.cpp ---------------------===//
#include "workbench/support/interrupt_forwarder.h"

#include <gtest/gtest.h>

#include <csignal>
#include <thread>

#include <unistd.h>

namespace kb::workbench {
namespace {

using std::chrono::milliseconds;

// The race a Ctrl-C can lose: the thread that reaps a worker killed by the
// signal asks before the waiter thread has taken it. awaitSignal waits for
// the waiter, so the signal sent 50 ms later is what it returns.
TEST(InterruptForwarderTest, AwaitSignalWaitsForASignalOnItsWay) {
  InterruptForwarder forwarder; // blocks SIGINT here and in later threads
  ASSERT_EQ(forwarder.signal(), 0);
  std::thread sender([] {
    std::this_thread::sleep_for(milliseconds(50));
    ::kill(::getpid(), SIGINT);
  });
  EXPECT_EQ(InterruptForwarder::awaitSignal(std::chrono::seconds(10)), SIGINT);
  EXPECT_EQ(forwarder.signal(), SIGINT);
  sender.join();
}

TEST(InterruptForwarderTest, AwaitSignalGivesUpAfterItsPatience) {
  InterruptForwarder forwarder;
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(InterruptForwarder::awaitSignal(milliseconds(100)), 0);
  EXPECT_GE(std::chrono::steady_clock::now() - start, milliseconds(100));
}

TEST(InterruptForwarderTest, AwaitSignalWithoutAForwarderIsNone) {
  EXPECT_EQ(InterruptForwarder::awaitSignal(milliseconds(10)), 0);
}

// A child that died of the Ctrl-C before our waiter took it: the death is
// read as the interrupt that is on its way.
TEST(InterruptForwarderTest, AChildKilledBySigtermWaitsForTheInterrupt) {
  InterruptForwarder forwarder;
  std::thread sender([] {
    std::this_thread::sleep_for(milliseconds(50));
    ::kill(::getpid(), SIGTERM);
  });
  EXPECT_EQ(InterruptForwarder::signalBehindChildDeath(SIGTERM, false),
            SIGTERM);
  sender.join();
}

// A crash is the child's own failure, and a SIGTERM the process runner sent
// at the child's time limit is ours: no wait, no interrupt.
TEST(InterruptForwarderTest, AChildThatCrashedOrTimedOutIsNotAnInterrupt) {
  InterruptForwarder forwarder;
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(InterruptForwarder::signalBehindChildDeath(SIGSEGV, false), 0);
  EXPECT_EQ(InterruptForwarder::signalBehindChildDeath(SIGKILL, false), 0);
  EXPECT_EQ(InterruptForwarder::signalBehindChildDeath(0, false), 0);
  EXPECT_EQ(InterruptForwarder::signalBehindChildDeath(SIGTERM, true), 0);
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(500));
}

} // namespace
} // namespace kb::workbench
