package main

import (
	"regexp/syntax"
	"strings"
)

// synthesize builds one string that the regular expression expr matches,
// varying characters with seed so that the result has high entropy.
func synthesize(expr string, seed int) (string, error) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return "", err
	}
	g := synth{n: seed * 7}
	var b strings.Builder
	g.emit(&b, re.Simplify())
	return b.String(), nil
}

type synth struct{ n int }

func (g *synth) emit(b *strings.Builder, re *syntax.Regexp) {
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		b.WriteRune(g.pick(re.Rune))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteRune(g.pick([]rune{'a', 'z', 'A', 'Z', '0', '9'}))
	case syntax.OpCapture:
		g.emit(b, re.Sub[0])
	case syntax.OpConcat:
		for _, s := range re.Sub {
			g.emit(b, s)
		}
	case syntax.OpAlternate:
		g.emit(b, re.Sub[0])
	case syntax.OpQuest:
		g.emit(b, re.Sub[0])
	case syntax.OpPlus:
		for range 24 {
			g.emit(b, re.Sub[0])
		}
	case syntax.OpRepeat:
		for range re.Min {
			g.emit(b, re.Sub[0])
		}
	}
}

// pick chooses a rune from a class, preferring letters and digits and
// moving on at every call.
func (g *synth) pick(ranges []rune) rune {
	var good []rune
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1] && len(good) < 256; r++ {
			if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
				good = append(good, r)
			}
		}
	}
	if len(good) == 0 {
		if len(ranges) == 0 {
			return 'x'
		}
		return ranges[0]
	}
	g.n += 7 // coprime with the usual class sizes (10, 16, 26, 36, 62)
	return good[g.n%len(good)]
}
