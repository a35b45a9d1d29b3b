// The K8 machine's I/O devices (Thumb C++): a class hierarchy whose methods are called only through
// the vtables (devices are made from a kind byte read at run time, then used through base pointers),
// mapped onto I/O pages of the bus by extern "C" hooks.
#include <cstdio>
#include <cstring>

extern "C" {
#include "cpu.h"
}

namespace {

class Device {
 public:
  explicit Device(uint16_t base) : base_(base) {}
  virtual ~Device() {}
  virtual uint8_t read(uint8_t reg) = 0;
  virtual void write(uint8_t reg, uint8_t value) = 0;
  virtual void tick(int cycles) { (void)cycles; }
  virtual const char *name() const = 0;
  uint16_t base() const { return base_; }

 protected:
  uint16_t base_;
};

class Timer : public Device {
 public:
  explicit Timer(uint16_t base) : Device(base) {}
  uint8_t read(uint8_t reg) override { return reg & 1 ? static_cast<uint8_t>(count_ >> 8) : static_cast<uint8_t>(count_); }
  void write(uint8_t reg, uint8_t value) override {
    if (reg == 2) reload_ = static_cast<uint16_t>((reload_ & 0xff00) | value);
    else if (reg == 3) reload_ = static_cast<uint16_t>((reload_ & 0xff) | value << 8);
    else if (reg == 4) running_ = value != 0;
  }
  void tick(int cycles) override {
    if (!running_) return;
    while (cycles-- > 0)
      if (count_-- == 0) {
        count_ = reload_;
        fired_++;
      }
  }
  const char *name() const override { return "timer"; }

 private:
  uint16_t count_ = 0, reload_ = 0xffff;
  bool running_ = false;
  unsigned fired_ = 0;
};

class Uart : public Device {
 public:
  explicit Uart(uint16_t base) : Device(base) { std::memset(line_, 0, sizeof line_); }
  uint8_t read(uint8_t reg) override { return reg == 0 ? 0x80 : static_cast<uint8_t>(length_); }
  void write(uint8_t reg, uint8_t value) override {
    if (reg != 1) return;
    if (value == '\n' || length_ + 1 >= sizeof line_) {
      std::printf("uart: %s\n", line_);
      length_ = 0;
      std::memset(line_, 0, sizeof line_);
    } else {
      line_[length_++] = static_cast<char>(value);
    }
  }
  const char *name() const override { return "uart"; }
  ~Uart() override {
    if (length_) std::printf("uart: %s\n", line_);
  }

 private:
  char line_[40];
  unsigned length_ = 0;
};

class Sound : public Device {
 public:
  explicit Sound(uint16_t base) : Device(base) {}
  uint8_t read(uint8_t reg) override { return volume_[reg & 3]; }
  void write(uint8_t reg, uint8_t value) override {
    volume_[reg & 3] = value;
    if (reg >= 4) phase_ = value;
  }
  void tick(int cycles) override { phase_ = static_cast<uint8_t>(phase_ + cycles * (volume_[0] + 1)); }
  const char *name() const override { return "sound"; }

 private:
  uint8_t volume_[4] = {0, 0, 0, 0};
  uint8_t phase_ = 0;
};

class Noise : public Device {
 public:
  explicit Noise(uint16_t base) : Device(base) {}
  uint8_t read(uint8_t reg) override {
    (void)reg;
    lfsr_ = static_cast<uint16_t>((lfsr_ >> 1) ^ (-(lfsr_ & 1u) & 0xb400u));
    return static_cast<uint8_t>(lfsr_);
  }
  void write(uint8_t reg, uint8_t value) override {
    (void)reg;
    lfsr_ = static_cast<uint16_t>(value | 1);
  }
  const char *name() const override { return "noise"; }

 private:
  uint16_t lfsr_ = 0xace1;
};

Device *devices[8];
int device_count;

Device *make_device(int kind, uint16_t base) {
  switch (kind & 3) {
    case 0: return new Timer(base);
    case 1: return new Uart(base);
    case 2: return new Sound(base);
    default: return new Noise(base);
  }
}

Device *device_at(uint16_t addr) {
  for (int i = 0; i < device_count; i++)
    if ((devices[i]->base() >> 8) == (addr >> 8)) return devices[i];
  return nullptr;
}

uint8_t io_read(uint16_t addr) {
  Device *d = device_at(addr);
  return d ? d->read(static_cast<uint8_t>(addr)) : 0xff;
}

void io_write(uint16_t addr, uint8_t value) {
  if (Device *d = device_at(addr)) d->write(static_cast<uint8_t>(addr), value);
}

}  // namespace

extern "C" int devices_create(const uint8_t *kinds, int n) {
  for (int i = 0; i < n && device_count < 8; i++) {
    uint16_t base = static_cast<uint16_t>(0xd000 + 0x100 * device_count);
    devices[device_count++] = make_device(kinds[i], base);
    bus_map_io(base >> 8, io_read, io_write);
  }
  return device_count;
}

extern "C" void devices_tick(int cycles) {
  for (int i = 0; i < device_count; i++) devices[i]->tick(cycles);
}

extern "C" void devices_list(void) {
  for (int i = 0; i < device_count; i++) std::printf("%04x %s\n", devices[i]->base(), devices[i]->name());
}

extern "C" void devices_destroy(void) {
  while (device_count > 0) delete devices[--device_count];
}
