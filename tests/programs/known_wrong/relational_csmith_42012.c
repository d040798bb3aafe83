extern void abort(void);
extern void __assert_fail(const char *, const char *, unsigned int, const char *) __attribute__((__nothrow__, __leaf__)) __attribute__((__noreturn__));
void reach_error() { __assert_fail("0", "prog.c", 3, "reach_error"); }
void __VERIFIER_assert(int cond) { if (!(cond)) { ERROR: { reach_error(); abort(); } } return; }
// Options:   --seed 42012 --no-pointers --no-structs --no-unions --no-arrays --no-volatiles --no-bitfields --no-checksum --no-argc --no-jumps --no-packed-struct --no-builtins --max-funcs 2 --max-block-depth 2 --max-block-size 3 --max-expr-complexity 3 --concise -o /tmp/.tmpLVkPe0/csmith.c
#include "csmith.h"

volatile uint64_t csmith_sink_ = 0;

static long __undefined;



static int32_t g_2 = 0x02E91A04L;
static int32_t g_5 = 0L;
static uint16_t g_7 = 65535UL;
static uint8_t g_55 = 0x91L;
static uint32_t g_56 = 18446744073709551606UL;
static uint16_t g_60 = 65535UL;



static uint8_t  func_1(void);
static int32_t  func_10(uint64_t  p_11);




static uint8_t  func_1(void)
{ 
    int16_t l_6 = 0x8114L;
    int32_t l_14 = 0L;
    int32_t l_19 = 0x97515801L;
    int32_t l_54 = 0L;
    int32_t l_59 = 0x2EA0FEFEL;
    for (g_2 = 9; (g_2 <= 28); g_2++)
    { 
        g_7--;
    }
    g_56 = ((((g_55 = ((func_10((safe_mod_func_uint64_t_u_u(((l_14 |= 0x91B68DEE21AFA9B6LL) <= (safe_lshift_func_int16_t_s_s((safe_mod_func_uint32_t_u_u((l_19 = 0UL), g_5)), l_6))), g_7))) , l_6) > l_54)) != g_5) | l_6) == 65531UL);
    g_60 &= (safe_add_func_int64_t_s_s((g_2 , (l_59 != 0x2DA7L)), l_6));
    return l_14;
}



static int32_t  func_10(uint64_t  p_11)
{ 
    uint32_t l_28 = 18446744073709551615UL;
    int32_t l_29 = 0x0C857617L;
    uint16_t l_38 = 65535UL;
    uint16_t l_50 = 65529UL;
    uint64_t l_51 = 0x09E13A3A1BBDB817LL;
    for (g_7 = 0; (g_7 >= 17); ++g_7)
    { 
        const uint32_t l_37 = 18446744073709551611UL;
        int32_t l_39 = 0xEBDAB6ACL;
        g_2 = ((p_11 == g_7) > 0L);
        l_29 ^= ((1L <= ((safe_lshift_func_int16_t_s_s(((safe_sub_func_uint8_t_u_u((safe_mod_func_int32_t_s_s(g_2, g_7)), l_28)) , g_2), g_5)) , p_11)) >= 0xD2AE857B1A094951LL);
        l_39 = (safe_add_func_uint16_t_u_u(((safe_sub_func_int32_t_s_s((((safe_lshift_func_int8_t_s_s((((l_29 , (~g_2)) <= p_11) | 0x796AL), l_29)) ^ g_7) > g_5), g_5)) ^ l_37), l_38));
    }
    g_2 = ((safe_mod_func_uint64_t_u_u((safe_sub_func_uint64_t_u_u(((((safe_mod_func_int16_t_s_s((safe_lshift_func_uint16_t_u_u((l_38 , (safe_mod_func_int8_t_s_s((((0x46899DB2L < (-1L)) , p_11) > p_11), p_11))), l_38)), l_29)) | g_2) ^ l_50) && p_11), g_2)), g_7)) >= l_51);
    for (p_11 = 16; (p_11 == 39); ++p_11)
    { 
        return l_50;
    }
    return l_51;
}





int main (void)
{
    int print_hash_value = 0;
    platform_main_begin();
    func_1();
__VERIFIER_assert((g_2) <= 1);
__VERIFIER_assert((g_5) != 0);
__VERIFIER_assert(((unsigned short)0) <= (g_7));
__VERIFIER_assert((g_55) == ((unsigned char)0));
__VERIFIER_assert(0U <= (g_56));
__VERIFIER_assert((g_60) <= ((unsigned short)33045));
    platform_main_end(0,0);
    return 0;
}
/* polyfocus soundness --generator csmith --seed 42012 --count 1
   check with: polyfocus check prog.c --cflags="-I/usr/include/csmith"
   classes: 
line 80: proved, but an execution fails it
*/
