// rocport_simd_intrinsics.h: added by `rocport port` to files that call CUDA's SIMD intrinsics
// (CUDA Math API, "SIMD Intrinsics": __vadd4, __vsubss4, __vcmpeq2, __vsadu4, ... 82 in all),
// which HIP does not declare (HIP 5.2 to 7.2). Each is written here in plain integer
// arithmetic, per halfword (the ...2 forms) or per byte (the ...4 forms), as CUDA 13 computes
// them: saturation to the lane's signed or unsigned range for ...ss/...us, signed averages
// rounded half away from zero, __vcmp* a lane of all ones and __vset* a lane of 1 where true,
// __vsad* the sum of the lanes' absolute differences. rocport's tests/port/simd/simd_check.cu
// compares each with CUDA's own on an NVIDIA GPU, bit for bit. They are __host__ __device__.
//
// A project may define some of these names itself for HIP (ggml's vendors/hip.h defines
// __vsubss4(int, int), __vcmpeq4 and others). Its own definitions take precedence: each
// function here is a template (on a defaulted parameter), which loses a tie to a non-template,
// and takes its arguments through a converting class, so that any function of the project that
// the arguments reach by standard conversions is the better match, and no call is ambiguous.
// The names are declared in parentheses: a function-like macro of the same name is not
// expanded here. Define ROCPORT_NO_SIMD_INTRINSICS to leave them all out.
#ifndef ROCPORT_SIMD_INTRINSICS_H
#define ROCPORT_SIMD_INTRINSICS_H

#ifndef ROCPORT_SIMD_STANDALONE  // tests define it to build the functions without HIP
#include <hip/hip_runtime.h>
#endif

#ifndef ROCPORT_NO_SIMD_INTRINSICS

namespace rocport_simd_detail {

// an argument: an unsigned int, reached from the caller's type by a user-defined conversion,
// which ranks below every standard conversion to a project's own overload
struct word {
  unsigned int v;
  __host__ __device__ word(unsigned int x) : v(x) {}
};

enum operation {
  op_abs, op_absss, op_neg, op_negss,  // one argument
  op_add, op_addss, op_addus, op_sub, op_subss, op_subus,
  op_avgs, op_avgu, op_haddu, op_absdiffs, op_absdiffu, op_maxs, op_maxu, op_mins, op_minu,
  op_eq, op_ne, op_ges, op_geu, op_gts, op_gtu, op_les, op_leu, op_lts, op_ltu  // comparisons
};

// lane i of v, Bits wide (8 or 16), as an unsigned and as a two's-complement signed value
template <int Bits>
__host__ __device__ inline int lane_u(unsigned int v, int i) {
  return static_cast<int>((v >> (i * Bits)) & ((1u << Bits) - 1u));
}
template <int Bits>
__host__ __device__ inline int lane_s(unsigned int v, int i) {
  const int x = lane_u<Bits>(v, i);
  return x >= (1 << (Bits - 1)) ? x - (1 << Bits) : x;
}
// saturation to the lane's signed or unsigned range
template <int Bits>
__host__ __device__ inline int clamp_s(int x) {
  const int hi = (1 << (Bits - 1)) - 1, lo = -(1 << (Bits - 1));
  return x > hi ? hi : x < lo ? lo : x;
}
template <int Bits>
__host__ __device__ inline int clamp_u(int x) {
  const int hi = (1 << Bits) - 1;
  return x > hi ? hi : x < 0 ? 0 : x;
}
// the signed rounded average: half-way cases away from zero (PTX's vavrg)
__host__ __device__ inline int avg_s(int x, int y) {
  const int t = x + y;
  return t >= 0 ? (t + 1) / 2 : -((1 - t) / 2);  // for t < 0, floor(t / 2)
}

// one lane's result, of which the lane keeps the low Bits bits; a comparison gives 1 or 0
template <int Bits, int Operation>
__host__ __device__ inline int lane_op(unsigned int a, unsigned int b, int i) {
  const int sa = lane_s<Bits>(a, i), sb = lane_s<Bits>(b, i);
  const int ua = lane_u<Bits>(a, i), ub = lane_u<Bits>(b, i);
  switch (Operation) {
    case op_abs: return sa < 0 ? -sa : sa;
    case op_absss: return clamp_s<Bits>(sa < 0 ? -sa : sa);
    case op_neg: return -sa;
    case op_negss: return clamp_s<Bits>(-sa);
    case op_add: return ua + ub;
    case op_addss: return clamp_s<Bits>(sa + sb);
    case op_addus: return clamp_u<Bits>(ua + ub);
    case op_sub: return ua - ub;
    case op_subss: return clamp_s<Bits>(sa - sb);
    case op_subus: return clamp_u<Bits>(ua - ub);
    case op_avgs: return avg_s(sa, sb);
    case op_avgu: return (ua + ub + 1) >> 1;
    case op_haddu: return (ua + ub) >> 1;
    case op_absdiffs: return sa > sb ? sa - sb : sb - sa;
    case op_absdiffu: return ua > ub ? ua - ub : ub - ua;
    case op_maxs: return sa > sb ? sa : sb;
    case op_maxu: return ua > ub ? ua : ub;
    case op_mins: return sa < sb ? sa : sb;
    case op_minu: return ua < ub ? ua : ub;
    case op_eq: return ua == ub;
    case op_ne: return ua != ub;
    case op_ges: return sa >= sb;
    case op_geu: return ua >= ub;
    case op_gts: return sa > sb;
    case op_gtu: return ua > ub;
    case op_les: return sa <= sb;
    case op_leu: return ua <= ub;
    case op_lts: return sa < sb;
    default: return ua < ub;  // op_ltu
  }
}

// the lanes' results packed into a word; AsMask: a true comparison sets all its lane's bits
template <int Bits, int Operation, bool AsMask>
__host__ __device__ inline unsigned int packed(unsigned int a, unsigned int b) {
  const unsigned int ones = (1u << Bits) - 1u;
  unsigned int r = 0;
  for (int i = 0; i < 32 / Bits; ++i) {
    const int x = lane_op<Bits, Operation>(a, b, i);
    const unsigned int bits = AsMask ? (x ? ones : 0u) : static_cast<unsigned int>(x) & ones;
    r |= bits << (i * Bits);
  }
  return r;
}

// the sum of the lanes' absolute differences, of signed or of unsigned lanes
template <int Bits, bool IsSigned>
__host__ __device__ inline unsigned int sad(unsigned int a, unsigned int b) {
  unsigned int r = 0;
  for (int i = 0; i < 32 / Bits; ++i) {
    r += static_cast<unsigned int>(lane_op<Bits, IsSigned ? op_absdiffs : op_absdiffu>(a, b, i));
  }
  return r;
}

}  // namespace rocport_simd_detail

// NAME(a) or NAME(a, b): each lane by OPERATION (a mask per true comparison with AS_MASK)
#define ROCPORT_SIMD_1(NAME, BITS, OPERATION)                                            \
  template <typename rocport_simd = void>                                               \
  __host__ __device__ inline unsigned int(NAME)(rocport_simd_detail::word a) {          \
    return rocport_simd_detail::packed<BITS, rocport_simd_detail::OPERATION, false>(    \
        a.v, 0u);                                                                       \
  }
#define ROCPORT_SIMD_2(NAME, BITS, OPERATION, AS_MASK)                                   \
  template <typename rocport_simd = void>                                               \
  __host__ __device__ inline unsigned int(NAME)(rocport_simd_detail::word a,            \
                                                rocport_simd_detail::word b) {          \
    return rocport_simd_detail::packed<BITS, rocport_simd_detail::OPERATION, AS_MASK>(  \
        a.v, b.v);                                                                      \
  }
#define ROCPORT_SIMD_SAD(NAME, BITS, IS_SIGNED)                                          \
  template <typename rocport_simd = void>                                               \
  __host__ __device__ inline unsigned int(NAME)(rocport_simd_detail::word a,            \
                                                rocport_simd_detail::word b) {          \
    return rocport_simd_detail::sad<BITS, IS_SIGNED>(a.v, b.v);                         \
  }

// per halfword
ROCPORT_SIMD_1(__vabs2, 16, op_abs)
ROCPORT_SIMD_1(__vabsss2, 16, op_absss)
ROCPORT_SIMD_1(__vneg2, 16, op_neg)
ROCPORT_SIMD_1(__vnegss2, 16, op_negss)
ROCPORT_SIMD_2(__vadd2, 16, op_add, false)
ROCPORT_SIMD_2(__vaddss2, 16, op_addss, false)
ROCPORT_SIMD_2(__vaddus2, 16, op_addus, false)
ROCPORT_SIMD_2(__vsub2, 16, op_sub, false)
ROCPORT_SIMD_2(__vsubss2, 16, op_subss, false)
ROCPORT_SIMD_2(__vsubus2, 16, op_subus, false)
ROCPORT_SIMD_2(__vavgs2, 16, op_avgs, false)
ROCPORT_SIMD_2(__vavgu2, 16, op_avgu, false)
ROCPORT_SIMD_2(__vhaddu2, 16, op_haddu, false)
ROCPORT_SIMD_2(__vabsdiffs2, 16, op_absdiffs, false)
ROCPORT_SIMD_2(__vabsdiffu2, 16, op_absdiffu, false)
ROCPORT_SIMD_2(__vmaxs2, 16, op_maxs, false)
ROCPORT_SIMD_2(__vmaxu2, 16, op_maxu, false)
ROCPORT_SIMD_2(__vmins2, 16, op_mins, false)
ROCPORT_SIMD_2(__vminu2, 16, op_minu, false)
ROCPORT_SIMD_2(__vcmpeq2, 16, op_eq, true)
ROCPORT_SIMD_2(__vcmpne2, 16, op_ne, true)
ROCPORT_SIMD_2(__vcmpges2, 16, op_ges, true)
ROCPORT_SIMD_2(__vcmpgeu2, 16, op_geu, true)
ROCPORT_SIMD_2(__vcmpgts2, 16, op_gts, true)
ROCPORT_SIMD_2(__vcmpgtu2, 16, op_gtu, true)
ROCPORT_SIMD_2(__vcmples2, 16, op_les, true)
ROCPORT_SIMD_2(__vcmpleu2, 16, op_leu, true)
ROCPORT_SIMD_2(__vcmplts2, 16, op_lts, true)
ROCPORT_SIMD_2(__vcmpltu2, 16, op_ltu, true)
ROCPORT_SIMD_2(__vseteq2, 16, op_eq, false)
ROCPORT_SIMD_2(__vsetne2, 16, op_ne, false)
ROCPORT_SIMD_2(__vsetges2, 16, op_ges, false)
ROCPORT_SIMD_2(__vsetgeu2, 16, op_geu, false)
ROCPORT_SIMD_2(__vsetgts2, 16, op_gts, false)
ROCPORT_SIMD_2(__vsetgtu2, 16, op_gtu, false)
ROCPORT_SIMD_2(__vsetles2, 16, op_les, false)
ROCPORT_SIMD_2(__vsetleu2, 16, op_leu, false)
ROCPORT_SIMD_2(__vsetlts2, 16, op_lts, false)
ROCPORT_SIMD_2(__vsetltu2, 16, op_ltu, false)
ROCPORT_SIMD_SAD(__vsads2, 16, true)
ROCPORT_SIMD_SAD(__vsadu2, 16, false)

// per byte
ROCPORT_SIMD_1(__vabs4, 8, op_abs)
ROCPORT_SIMD_1(__vabsss4, 8, op_absss)
ROCPORT_SIMD_1(__vneg4, 8, op_neg)
ROCPORT_SIMD_1(__vnegss4, 8, op_negss)
ROCPORT_SIMD_2(__vadd4, 8, op_add, false)
ROCPORT_SIMD_2(__vaddss4, 8, op_addss, false)
ROCPORT_SIMD_2(__vaddus4, 8, op_addus, false)
ROCPORT_SIMD_2(__vsub4, 8, op_sub, false)
ROCPORT_SIMD_2(__vsubss4, 8, op_subss, false)
ROCPORT_SIMD_2(__vsubus4, 8, op_subus, false)
ROCPORT_SIMD_2(__vavgs4, 8, op_avgs, false)
ROCPORT_SIMD_2(__vavgu4, 8, op_avgu, false)
ROCPORT_SIMD_2(__vhaddu4, 8, op_haddu, false)
ROCPORT_SIMD_2(__vabsdiffs4, 8, op_absdiffs, false)
ROCPORT_SIMD_2(__vabsdiffu4, 8, op_absdiffu, false)
ROCPORT_SIMD_2(__vmaxs4, 8, op_maxs, false)
ROCPORT_SIMD_2(__vmaxu4, 8, op_maxu, false)
ROCPORT_SIMD_2(__vmins4, 8, op_mins, false)
ROCPORT_SIMD_2(__vminu4, 8, op_minu, false)
ROCPORT_SIMD_2(__vcmpeq4, 8, op_eq, true)
ROCPORT_SIMD_2(__vcmpne4, 8, op_ne, true)
ROCPORT_SIMD_2(__vcmpges4, 8, op_ges, true)
ROCPORT_SIMD_2(__vcmpgeu4, 8, op_geu, true)
ROCPORT_SIMD_2(__vcmpgts4, 8, op_gts, true)
ROCPORT_SIMD_2(__vcmpgtu4, 8, op_gtu, true)
ROCPORT_SIMD_2(__vcmples4, 8, op_les, true)
ROCPORT_SIMD_2(__vcmpleu4, 8, op_leu, true)
ROCPORT_SIMD_2(__vcmplts4, 8, op_lts, true)
ROCPORT_SIMD_2(__vcmpltu4, 8, op_ltu, true)
ROCPORT_SIMD_2(__vseteq4, 8, op_eq, false)
ROCPORT_SIMD_2(__vsetne4, 8, op_ne, false)
ROCPORT_SIMD_2(__vsetges4, 8, op_ges, false)
ROCPORT_SIMD_2(__vsetgeu4, 8, op_geu, false)
ROCPORT_SIMD_2(__vsetgts4, 8, op_gts, false)
ROCPORT_SIMD_2(__vsetgtu4, 8, op_gtu, false)
ROCPORT_SIMD_2(__vsetles4, 8, op_les, false)
ROCPORT_SIMD_2(__vsetleu4, 8, op_leu, false)
ROCPORT_SIMD_2(__vsetlts4, 8, op_lts, false)
ROCPORT_SIMD_2(__vsetltu4, 8, op_ltu, false)
ROCPORT_SIMD_SAD(__vsads4, 8, true)
ROCPORT_SIMD_SAD(__vsadu4, 8, false)

#undef ROCPORT_SIMD_1
#undef ROCPORT_SIMD_2
#undef ROCPORT_SIMD_SAD

#endif  // ROCPORT_NO_SIMD_INTRINSICS

#endif  // ROCPORT_SIMD_INTRINSICS_H
