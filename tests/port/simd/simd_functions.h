// CUDA's SIMD intrinsics (CUDA 13.0, crt/device_functions.h: 82 functions), as X-macro
// lists for the checks in this folder: X(name) for each, one-argument ones first.
#pragma once

#define SIMD_UNARY(X) \
  X(__vabs2) \
  X(__vabs4) \
  X(__vabsss2) \
  X(__vabsss4) \
  X(__vneg2) \
  X(__vneg4) \
  X(__vnegss2) \
  X(__vnegss4)

#define SIMD_BINARY(X) \
  X(__vabsdiffs2) \
  X(__vabsdiffs4) \
  X(__vabsdiffu2) \
  X(__vabsdiffu4) \
  X(__vadd2) \
  X(__vadd4) \
  X(__vaddss2) \
  X(__vaddss4) \
  X(__vaddus2) \
  X(__vaddus4) \
  X(__vavgs2) \
  X(__vavgs4) \
  X(__vavgu2) \
  X(__vavgu4) \
  X(__vcmpeq2) \
  X(__vcmpeq4) \
  X(__vcmpges2) \
  X(__vcmpges4) \
  X(__vcmpgeu2) \
  X(__vcmpgeu4) \
  X(__vcmpgts2) \
  X(__vcmpgts4) \
  X(__vcmpgtu2) \
  X(__vcmpgtu4) \
  X(__vcmples2) \
  X(__vcmples4) \
  X(__vcmpleu2) \
  X(__vcmpleu4) \
  X(__vcmplts2) \
  X(__vcmplts4) \
  X(__vcmpltu2) \
  X(__vcmpltu4) \
  X(__vcmpne2) \
  X(__vcmpne4) \
  X(__vhaddu2) \
  X(__vhaddu4) \
  X(__vmaxs2) \
  X(__vmaxs4) \
  X(__vmaxu2) \
  X(__vmaxu4) \
  X(__vmins2) \
  X(__vmins4) \
  X(__vminu2) \
  X(__vminu4) \
  X(__vsads2) \
  X(__vsads4) \
  X(__vsadu2) \
  X(__vsadu4) \
  X(__vseteq2) \
  X(__vseteq4) \
  X(__vsetges2) \
  X(__vsetges4) \
  X(__vsetgeu2) \
  X(__vsetgeu4) \
  X(__vsetgts2) \
  X(__vsetgts4) \
  X(__vsetgtu2) \
  X(__vsetgtu4) \
  X(__vsetles2) \
  X(__vsetles4) \
  X(__vsetleu2) \
  X(__vsetleu4) \
  X(__vsetlts2) \
  X(__vsetlts4) \
  X(__vsetltu2) \
  X(__vsetltu4) \
  X(__vsetne2) \
  X(__vsetne4) \
  X(__vsub2) \
  X(__vsub4) \
  X(__vsubss2) \
  X(__vsubss4) \
  X(__vsubus2) \
  X(__vsubus4)

#define SIMD_COUNT 82
