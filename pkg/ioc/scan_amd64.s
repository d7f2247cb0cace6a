//go:build amd64 && !purego

#include "textflag.h"

// func skipVector(p *byte, n int, t *nibbleTable) int
//
// For each block of 32 bytes: the low and the high nibble of every byte
// index the two halves of t (VPSHUFB), and a byte is in the set when the
// two entries share a bit.
TEXT ·skipVector(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), BX
	MOVQ t+16(FP), DX
	ANDQ $~31, BX                  // whole blocks only
	VBROADCASTI128 (DX), Y6        // lo table, in both lanes
	VBROADCASTI128 16(DX), Y7      // hi table
	MOVL $0x0f0f0f0f, AX
	MOVD AX, X5
	VPBROADCASTD X5, Y5            // 0x0f in every byte
	VPXOR Y4, Y4, Y4
	XORQ AX, AX                    // offset of the block

loop:
	CMPQ AX, BX
	JAE  done
	VMOVDQU (SI)(AX*1), Y0
	VPSRLW $4, Y0, Y1
	VPAND Y5, Y0, Y0               // low nibbles
	VPAND Y5, Y1, Y1               // high nibbles
	VPSHUFB Y0, Y6, Y0
	VPSHUFB Y1, Y7, Y1
	VPAND Y0, Y1, Y0
	VPCMPEQB Y4, Y0, Y0            // 0xff where the byte is not in the set
	VPMOVMSKB Y0, CX
	XORL $0xffffffff, CX           // a bit per byte in the set
	JNZ  found
	ADDQ $32, AX
	JMP  loop

found:
	BSFL CX, CX
	ADDQ CX, AX

done:
	VZEROUPPER
	MOVQ AX, ret+24(FP)
	RET

// func maskVector(p *byte, t *nibbleTable) uint64
//
// The set's bytes among the 64 at p, as a bit mask (bit k for p[k]).
TEXT ·maskVector(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ t+8(FP), DX
	VBROADCASTI128 (DX), Y6
	VBROADCASTI128 16(DX), Y7
	MOVL $0x0f0f0f0f, AX
	MOVD AX, X5
	VPBROADCASTD X5, Y5
	VPXOR Y4, Y4, Y4
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y2
	VPSRLW $4, Y0, Y1
	VPSRLW $4, Y2, Y3
	VPAND Y5, Y0, Y0
	VPAND Y5, Y1, Y1
	VPAND Y5, Y2, Y2
	VPAND Y5, Y3, Y3
	VPSHUFB Y0, Y6, Y0
	VPSHUFB Y1, Y7, Y1
	VPSHUFB Y2, Y6, Y2
	VPSHUFB Y3, Y7, Y3
	VPAND Y0, Y1, Y0
	VPAND Y2, Y3, Y2
	VPCMPEQB Y4, Y0, Y0
	VPCMPEQB Y4, Y2, Y2
	VPMOVMSKB Y0, AX
	VPMOVMSKB Y2, CX
	SHLQ $32, CX
	ORQ  CX, AX
	NOTQ AX
	VZEROUPPER
	MOVQ AX, ret+16(FP)
	RET
