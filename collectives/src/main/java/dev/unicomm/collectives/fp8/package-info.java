/** FP8 e4m3 quantisation of BF16 tokens with one fp32 scale per 128 channels (DeepEP's {@code per_token_cast_to_fp8}). */
package dev.unicomm.collectives.fp8;
