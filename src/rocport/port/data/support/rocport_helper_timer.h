// rocport_helper_timer.h: added by `rocport port` in place of the CUDA samples' helper_timer.h,
// which the project includes from the CUDA SDK (it is not part of the project's tree).
// The same names: StopWatchInterface and the sdk*Timer functions (milliseconds, host clock).
#ifndef ROCPORT_HELPER_TIMER_H
#define ROCPORT_HELPER_TIMER_H

#include <chrono>

class StopWatchInterface {
 public:
  virtual ~StopWatchInterface() {}
  virtual void start() = 0;
  virtual void stop() = 0;
  virtual void reset() = 0;
  virtual float getTime() = 0;         // ms: the running or last interval plus earlier ones
  virtual float getAverageTime() = 0;  // ms per completed start/stop interval
};

class StopWatchLinux : public StopWatchInterface {
 public:
  void start() override {
    started_ = std::chrono::steady_clock::now();
    running_ = true;
  }
  void stop() override {
    if (!running_) return;
    total_ += since_start();
    running_ = false;
    ++sessions_;
  }
  void reset() override {
    total_ = 0;
    sessions_ = 0;
    if (running_) started_ = std::chrono::steady_clock::now();
  }
  float getTime() override { return total_ + (running_ ? since_start() : 0.0f); }
  float getAverageTime() override { return sessions_ > 0 ? total_ / sessions_ : 0.0f; }

 private:
  float since_start() const {
    std::chrono::duration<float, std::milli> ms = std::chrono::steady_clock::now() - started_;
    return ms.count();
  }
  std::chrono::steady_clock::time_point started_{};
  float total_ = 0;
  int sessions_ = 0;
  bool running_ = false;
};

typedef StopWatchLinux StopWatch;

inline bool sdkCreateTimer(StopWatchInterface** timer) {
  *timer = new StopWatchLinux();
  return *timer != nullptr;
}

inline bool sdkDeleteTimer(StopWatchInterface** timer) {
  delete *timer;
  *timer = nullptr;
  return true;
}

inline bool sdkStartTimer(StopWatchInterface** timer) {
  if (*timer != nullptr) (*timer)->start();
  return true;
}

inline bool sdkStopTimer(StopWatchInterface** timer) {
  if (*timer != nullptr) (*timer)->stop();
  return true;
}

inline bool sdkResetTimer(StopWatchInterface** timer) {
  if (*timer != nullptr) (*timer)->reset();
  return true;
}

inline float sdkGetAverageTimerValue(StopWatchInterface** timer) {
  return *timer != nullptr ? (*timer)->getAverageTime() : 0.0f;
}

inline float sdkGetTimerValue(StopWatchInterface** timer) {
  return *timer != nullptr ? (*timer)->getTime() : 0.0f;
}

#endif  // ROCPORT_HELPER_TIMER_H
