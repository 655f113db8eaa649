// A global object whose constructor must have run before main (C++ init arrays).
#include "selftest.h"

namespace {

class Constructed {
 public:
  Constructed() : magic_(0x5E1F7E57u) {}
  bool ok() const { return magic_ == 0x5E1F7E57u; }

 private:
  volatile unsigned magic_;
};

Constructed constructed;

}  // namespace

extern "C" int selftest_cxx_constructed(void) { return constructed.ok() ? 1 : 0; }
