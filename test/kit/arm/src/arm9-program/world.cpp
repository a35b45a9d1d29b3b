// The C++ part of the ARM9 kit program (Thumb): a class hierarchy with virtual methods, objects built
// by static constructors (.init_array), standard containers and strings, and an exception thrown and
// caught, so the program carries the C++ runtime real homebrew does.
#include <cstdio>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

extern "C" {
#include "game.h"
}

namespace {

class Shape {
 public:
  explicit Shape(int id) : id_(id) {}
  virtual ~Shape() {}
  virtual int area() const = 0;
  virtual int perimeter() const = 0;
  virtual void grow(int by) = 0;
  virtual const char *kind() const { return "shape"; }
  int id() const { return id_; }

 private:
  int id_;
};

class Rect : public Shape {
 public:
  Rect(int id, int w, int h) : Shape(id), w_(w), h_(h) {}
  int area() const override { return w_ * h_; }
  int perimeter() const override { return 2 * (w_ + h_); }
  void grow(int by) override {
    w_ += by;
    h_ += by;
  }
  const char *kind() const override { return "rect"; }

 protected:
  int w_, h_;
};

class Square : public Rect {
 public:
  Square(int id, int s) : Rect(id, s, s) {}
  const char *kind() const override { return "square"; }
  void grow(int by) override { Rect::grow(by * 2); }
};

class Circle : public Shape {
 public:
  Circle(int id, int r) : Shape(id), r_(r) {}
  int area() const override { return fixed_mul(r_ * r_ << 12, 12868) >> 12; }
  int perimeter() const override { return fixed_mul(r_ << 13, 12868) >> 12; }
  void grow(int by) override {
    if (r_ + by < 0) throw std::range_error("negative radius");
    r_ += by;
  }
  const char *kind() const override { return "circle"; }

 private:
  int r_;
};

class Scene {
 public:
  Scene() : frames_(0) {
    shapes_.push_back(new Rect(1, 3, 4));
    shapes_.push_back(new Square(2, 5));
    shapes_.push_back(new Circle(3, 2));
  }
  ~Scene() {
    for (Shape *s : shapes_) delete s;
  }
  int step(int frame) {
    frames_++;
    int total = 0;
    for (Shape *s : shapes_) {
      if ((frame & 31) == 0) {
        try {
          s->grow((frame & 64) ? -100 : 1);
        } catch (const std::range_error &e) {
          errors_[s->id()] = e.what();
        }
      }
      total += s->area() + s->perimeter();
    }
    names_ = describe();
    return total;
  }
  std::string describe() const {
    std::string out;
    for (const Shape *s : shapes_) {
      out += s->kind();
      out += ' ';
    }
    return out;
  }
  size_t errors() const { return errors_.size(); }

 private:
  std::vector<Shape *> shapes_;
  std::map<int, std::string> errors_;
  std::string names_;
  int frames_;
};

struct Registry {
  Registry() : count(0) { std::strcpy(label, "registry"); }
  int count;
  char label[16];
};

Registry registry;  // built by a static constructor
Scene scene;        // likewise
std::vector<int> history;

}  // namespace

extern "C" int cpp_scene_step(int frame) {
  int total = scene.step(frame);
  history.push_back(total);
  if (history.size() > 32) history.erase(history.begin());
  registry.count++;
  return total + static_cast<int>(scene.errors());
}

extern "C" void world_tick(int frame) {
  if ((frame & 127) == 0) std::printf("%s %d\n", registry.label, registry.count);
}

extern "C" int world_population(void) { return static_cast<int>(history.size()); }

extern "C" int world_total_score(void) {
  int sum = 0;
  for (int v : history) sum += v;
  return sum;
}
