//go:build amd64 && !purego

#include "textflag.h"

// TABLES loads the nibble tables at t: lo into Y6 and hi into Y7 (in both
// lanes), 0x0f in every byte of Y5, zero in Y4. It uses AX.
#define TABLES(t) \
	VBROADCASTI128 (t), Y6; \
	VBROADCASTI128 16(t), Y7; \
	MOVL $0x0f0f0f0f, AX; \
	MOVD AX, X5; \
	VPBROADCASTD X5, Y5; \
	VPXOR Y4, Y4, Y4

// LOOKUP64 looks up the 64 bytes at lo and hi (32 each) in the nibble
// tables: Y0 and Y2 end non-zero at the bytes in the set. It needs TABLES.
#define LOOKUP64(lo, hi) \
	VMOVDQU lo, Y0; \
	VMOVDQU hi, Y2; \
	NIBBLES64

// NIBBLES64 is LOOKUP64 for 64 bytes already in Y0 and Y2.
#define NIBBLES64 \
	VPSRLW $4, Y0, Y1; \
	VPSRLW $4, Y2, Y3; \
	VPAND Y5, Y0, Y0; \
	VPAND Y5, Y1, Y1; \
	VPAND Y5, Y2, Y2; \
	VPAND Y5, Y3, Y3; \
	VPSHUFB Y0, Y6, Y0; \
	VPSHUFB Y1, Y7, Y1; \
	VPSHUFB Y2, Y6, Y2; \
	VPSHUFB Y3, Y7, Y3; \
	VPAND Y0, Y1, Y0; \
	VPAND Y2, Y3, Y2

// BITS64 gathers the top bits of the 64 bytes of lo and hi (32 each) in
// r, bit k for the k-th byte; it uses t.
#define BITS64(lo, hi, r, t) \
	VPMOVMSKB lo, r; \
	VPMOVMSKB hi, t; \
	SHLQ $32, t; \
	ORQ  t, r

// MASK64 is LOOKUP64 as a bit mask in AX, bit k for the k-th byte; Y4
// must be zero.
#define MASK64(lo, hi) \
	LOOKUP64(lo, hi); \
	VPCMPEQB Y4, Y0, Y0; \
	VPCMPEQB Y4, Y2, Y2; \
	BITS64(Y0, Y2, AX, CX); \
	NOTQ AX

// TAILADDR puts in R9 where to read the last n%64 bytes from, for the
// bytes from SI on (BX of them, fewer than 64), without leaving SI's
// page: SI itself when 64 bytes from it stay in the page, else the 64
// bytes that end at SI+BX (which then start in the page). It uses R8.
#define TAILADDR \
	LEAQ -64(SI)(BX*1), R9; \
	MOVQ SI, R8; \
	ANDQ $4095, R8; \
	CMPQ R8, $4032; \
	CMOVQLS SI, R9

// LINES64 is maskLines's work on the 64 bytes in Y0 and Y2: the line
// ends in R12, the set's bytes in AX (lookups positive as signed bytes),
// the lookups or-ed into Y9. It needs TABLES, '\n' in
// every byte of Y8, and uses Y10, Y11, R13 and CX.
#define LINES64 \
	VPCMPEQB Y8, Y0, Y10; \
	VPCMPEQB Y8, Y2, Y11; \
	BITS64(Y10, Y11, R12, R13); \
	NIBBLES64; \
	VPOR Y0, Y9, Y9; \
	VPOR Y2, Y9, Y9; \
	VPCMPGTB Y4, Y0, Y0; \
	VPCMPGTB Y4, Y2, Y2; \
	BITS64(Y0, Y2, AX, CX)

// func skipVector(p *byte, n int, t *nibbleTable) int
//
// For each block of 32 bytes: the low and the high nibble of every byte
// index the two halves of t (VPSHUFB), and a byte is in the set when the
// two entries share a bit. Prose runs long between the bytes looked for,
// so blocks are first taken two at a time, with one test for both.
TEXT ·skipVector(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), BX
	MOVQ t+16(FP), DX
	ANDQ $~31, BX                  // whole blocks only
	TABLES(DX)
	XORQ AX, AX                    // offset of the block

	MOVQ BX, R8
	ANDQ $~63, R8                  // pairs of blocks first

loop64:
	CMPQ AX, R8
	JAE  loop
	LOOKUP64((SI)(AX*1), 32(SI)(AX*1))
	VPOR Y0, Y2, Y1
	VPTEST Y1, Y1                  // any byte of the 64 in the set?
	JNZ  loop                      // yes: find it 32 at a time
	ADDQ $64, AX
	JMP  loop64

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

// func maskBlocks(p *byte, n int, t *nibbleTable, out *uint64)
//
// The set's bytes among p[:n] as bit masks, 64 bytes to a word of out
// (bit k of out[w] for p[64w+k]), by the lookups skipVector makes; the last word
// holds the last n%64 bytes (bits past n clear). That last load never
// leaves p's page: it reads the 64 bytes from p[k] when they fit in the
// page, else the 64 that end at p[n] (which then start in the page).
TEXT ·maskBlocks(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), BX
	MOVQ t+16(FP), DX
	MOVQ out+24(FP), DI
	TABLES(DX)

loop:
	CMPQ BX, $64
	JB   tail
	MASK64((SI), 32(SI))
	MOVQ AX, (DI)
	ADDQ $64, SI
	ADDQ $8, DI
	SUBQ $64, BX
	JMP  loop

tail:
	TESTQ BX, BX
	JZ    done
	TAILADDR
	MASK64((R9), 32(R9))
	CMPQ  R9, SI
	JEQ   keep
	MOVQ  $64, CX                  // from the end: shift p[k] down to bit 0
	SUBQ  BX, CX
	SHRQ  CX, AX
	JMP   store

keep:
	MOVQ  BX, CX                   // from p[k]: clear the bits past p[n]
	MOVQ  $-1, R10
	SHLQ  CX, R10
	NOTQ  R10
	ANDQ  R10, AX

store:
	MOVQ AX, (DI)

done:
	VZEROUPPER
	RET

// func maskLines(p *byte, n int, t *nibbleTable, anchors, ends *uint64) (odd bool)
//
// maskBlocks for a text of lines, with the line ends besides: the bytes
// of t's set among p[:n] as bit masks in anchors, the '\n' bytes in ends,
// 64 bytes to a word of each. t holds its set in bits 0 to 6, and a rough
// set of controls in bit 7 (see lineNibbles): a byte is in the set when
// its lookup is positive as a signed byte. odd tells that the bytes read
// hold a byte whose lookup has bit 6 or 7 (with lineNibbles, a byte of
// that rough set or a non-ASCII byte): the last load may
// read up to 63 bytes around p[:n] (in p's page, as maskBlocks's does),
// which odd counts too, so it may be true for bytes outside p[:n], never
// false for one inside. n must be at least 1.
TEXT ·maskLines(SB), NOSPLIT, $0-41
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), BX
	MOVQ t+16(FP), DX
	MOVQ anchors+24(FP), DI
	MOVQ ends+32(FP), R11
	TABLES(DX)
	MOVL $0x0a0a0a0a, AX
	MOVD AX, X8
	VPBROADCASTD X8, Y8            // '\n' in every byte
	VPXOR Y9, Y9, Y9               // the lookups, or-ed: bits 6 and 7 are odd

	MOVQ BX, R8
	SHRQ $6, R8                    // whole blocks of 64
	JZ   mtail
	XORQ R10, R10                  // the word written

mloop:
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y2
	LINES64
	MOVQ AX, (DI)(R10*8)
	MOVQ R12, (R11)(R10*8)
	ADDQ $64, SI
	INCQ R10
	CMPQ R10, R8
	JB   mloop
	LEAQ (DI)(R10*8), DI
	LEAQ (R11)(R10*8), R11
	ANDQ $63, BX

mtail:
	TESTQ BX, BX
	JZ    mdone
	TAILADDR
	VMOVDQU (R9), Y0
	VMOVDQU 32(R9), Y2
	LINES64
	CMPQ  R9, SI
	JEQ   mkeep
	MOVQ  $64, CX                  // from the end: shift p[k] down to bit 0
	SUBQ  BX, CX
	SHRQ  CX, AX
	SHRQ  CX, R12
	JMP   mstore

mkeep:
	MOVQ  BX, CX                   // from p[k]: clear the bits past p[n]
	MOVQ  $-1, R10
	SHLQ  CX, R10
	NOTQ  R10
	ANDQ  R10, AX
	ANDQ  R10, R12

mstore:
	MOVQ AX, (DI)
	MOVQ R12, (R11)

mdone:
	VPSLLW $1, Y9, Y10             // bit 6 to bit 7
	VPOR Y10, Y9, Y9
	VPMOVMSKB Y9, AX
	TESTL AX, AX
	SETNE odd+40(FP)
	VZEROUPPER
	RET
