extern void reach_error(void);
extern unsigned char __VERIFIER_nondet_uchar(void);
extern void __VERIFIER_assume(int);
// Options:   --seed 42092 --no-pointers --no-structs --no-unions --no-arrays --no-volatiles --no-bitfields --no-checksum --no-argc --no-jumps --no-packed-struct --no-builtins --max-funcs 2 --max-block-depth 2 --max-block-size 3 --max-expr-complexity 3 --concise -o /tmp/.tmplDUJlY/csmith.c
#include "csmith.h"

volatile uint64_t csmith_sink_ = 0;

static long __undefined;



static const int32_t g_4 = (-2L);
static int8_t g_15 = (-1L);
static uint64_t g_16 = 4UL;
static int64_t g_18 = 0xBA2522ABF7C2F5A2LL;
static uint32_t g_35 = 4294967295UL;
static uint32_t g_38 = 0UL;
static uint32_t g_39 = 1UL;
static uint64_t g_41 = 4UL;
static uint8_t g_60 = 0xCBL;
static uint32_t g_61 = 4294967295UL;
static int64_t g_65 = 1L;



static const int64_t  func_1(void);
static int32_t  func_2(const uint8_t  p_3);




static const int64_t  func_1(void)
{ 
    int32_t l_19 = 0L;
    l_19 = func_2(g_4);
    for (g_16 = 0; (g_16 > 59); g_16 = safe_add_func_uint16_t_u_u(g_16, 1))
    { 
        uint64_t l_33 = 8UL;
        int8_t l_34 = 0x92L;
        g_35 = (((g_15 >= (!(safe_add_func_int16_t_s_s((safe_lshift_func_int8_t_s_u((safe_div_func_int64_t_s_s((safe_unary_minus_func_uint16_t_u((((+(((safe_div_func_int16_t_s_s(3L, g_15)) >= l_33) > 65535UL)) , g_18) , l_33))), l_33)), g_18)), g_16)))) ^ 9L) != l_34);
        for (g_15 = 0; (g_15 < 11); g_15++)
        { 
            int8_t l_40 = 0xD3L;
            g_39 &= (g_38 = 0x6B87C265L);
            if (l_40)
                continue;
            ++g_41;
        }
    }
    if ((l_19 <= (~((safe_mod_func_int64_t_s_s(l_19, g_15)) ^ l_19))))
    { 
        for (g_18 = (-23); (g_18 >= 25); ++g_18)
        { 
            int8_t l_59 = (-1L);
            g_60 = ((safe_add_func_int32_t_s_s((-1L), ((safe_mod_func_uint32_t_u_u((safe_lshift_func_int16_t_s_u((safe_div_func_int16_t_s_s((safe_mul_func_int8_t_s_s((g_15 = 0xEEL), 0x30L)), 8L)), 14)), g_35)) >= 0x24E194E4064544A9LL))) == l_59);
            g_61 |= (g_15 | 1L);
        }
    }
    else
    { 
        const uint16_t l_66 = 7UL;
        for (g_16 = (-12); (g_16 < 31); g_16++)
        { 
            uint32_t l_64 = 0xE1B4ADC7L;
            g_65 |= l_64;
            return g_41;
        }
        return l_66;
    }
    return l_19;
}



static int32_t  func_2(const uint8_t  p_3)
{ 
    uint32_t l_12 = 0xD193E056L;
    int32_t l_13 = 7L;
    int32_t l_14 = 0xDCA8FECFL;
    int32_t l_17 = 0xDEC995F7L;
    if ((safe_lshift_func_int8_t_s_u((safe_add_func_uint32_t_u_u((g_15 = (l_14 = (0x22L <= (safe_sub_func_int8_t_s_s((~(l_13 = (((((0xB5CAL > 65526UL) , 0xADL) , 1L) < l_12) , 9UL))), l_12))))), p_3)), 5)))
    { 
        if (((g_16 = ((p_3 > (((g_4 > p_3) & 0xD850270F9E3D3B0CLL) ^ g_15)) , 0UL)) == 254UL))
        { 
            return l_17;
        }
        else
        { 
            return g_15;
        }
    }
    else
    { 
        g_18 = g_4;
        return g_15;
    }
}





int main (void)
{
    int print_hash_value = 0;
    platform_main_begin();
unsigned char in_0 = __VERIFIER_nondet_uchar(); __VERIFIER_assume(((unsigned char)0) <= in_0 && in_0 <= ((unsigned char)3));
    g_61 ^= in_0;
    func_1();
if (!(-2 <= (g_4) && (g_4) <= -2)) reach_error();
if (!((g_15) <= ((signed char)0))) reach_error();
if (!((g_16) <= 18446744073709551604ULL)) reach_error();
if (!((g_18) > -5033578886525160030LL || (g_18) == -5033578886525160030LL)) reach_error();
if (!(4294967295U <= (g_35) && (g_35) <= 4294967295U)) reach_error();
if (!((g_38) != 0U)) reach_error();
if (!((g_39) != 1U)) reach_error();
if (!(4ULL <= (g_41) && (g_41) <= 4ULL)) reach_error();
if (!((g_60) <= ((unsigned char)203))) reach_error();
if (!((g_61) != 4294967294U)) reach_error();
if (!((g_65) > 1LL || (g_65) == 1LL)) reach_error();
    platform_main_end(0,0);
    return 0;
}
/* polyfocus soundness --generator csmith --seed 42092 --count 1
   check with: polyfocus check prog.c --cflags="-I/usr/include/csmith"
   classes: inputs
line 116: proved, but an execution fails it
*/
