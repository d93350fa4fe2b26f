package expr

// to_char over numbers (int4, int8, float4, float8, numeric), following
// PostgreSQL 15's NUM_processor in the C locale.

import (
	"math"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"

	"github.com/weir-sql/weir/sql/sqlerr"
	"github.com/weir-sql/weir/sql/types"
)

var numKeys = []fmtKey{
	{name: ",", id: ","}, {name: ".", id: "."}, {name: "0", id: "0"}, {name: "9", id: "9"},
	{name: "B", id: "B"}, {name: "C", id: "C"}, {name: "D", id: "D"}, {name: "EEEE", id: "E"},
	{name: "FM", id: "FM"}, {name: "G", id: "G"}, {name: "L", id: "L"}, {name: "MI", id: "MI"},
	{name: "PL", id: "PL"}, {name: "PR", id: "PR"}, {name: "RN", id: "RN"}, {name: "SG", id: "SG"},
	{name: "SP", id: "SP"}, {name: "S", id: "S"}, {name: "TH", id: "TH"}, {name: "V", id: "V"},
	{name: "b", id: "B"}, {name: "c", id: "C"}, {name: "d", id: "D"}, {name: "eeee", id: "E"},
	{name: "fm", id: "FM"}, {name: "g", id: "G"}, {name: "l", id: "L"}, {name: "mi", id: "MI"},
	{name: "pl", id: "PL"}, {name: "pr", id: "PR"}, {name: "rn", id: "rn"}, {name: "sg", id: "SG"},
	{name: "sp", id: "SP"}, {name: "s", id: "S"}, {name: "th", id: "th"}, {name: "v", id: "V"},
}

const (
	nfDecimal = 1 << iota
	nfLDecimal
	nfZero
	nfBlank
	nfFillMode
	nfLSign
	nfBracket
	nfMinus
	nfPlus
	nfRoman
	nfMulti
	nfEEEE
)

const (
	lsignNone = 0
	lsignPre  = -1
	lsignPost = 1
)

type numDesc struct {
	pre, post, lsign, flag, preLsignNum, multi, zeroStart, zeroEnd int
}

func numSyntax(msg string) error { return sqlerr.New(sqlerr.SyntaxError, "%s", msg) }

// prepare is NUMDesc_prepare for one node.
func (num *numDesc) prepare(n *fmtNode) error {
	if n.kind != fmtAction {
		return nil
	}
	id := n.key.id
	if num.flag&nfEEEE != 0 && id != "E" {
		return numSyntax("\"EEEE\" must be the last pattern used")
	}
	switch id {
	case "9":
		if num.flag&nfBracket != 0 {
			return numSyntax("\"9\" must be ahead of \"PR\"")
		}
		if num.flag&nfMulti != 0 {
			num.multi++
			break
		}
		if num.flag&nfDecimal != 0 {
			num.post++
		} else {
			num.pre++
		}
	case "0":
		if num.flag&nfBracket != 0 {
			return numSyntax("\"0\" must be ahead of \"PR\"")
		}
		if num.flag&nfZero == 0 && num.flag&nfDecimal == 0 {
			num.flag |= nfZero
			num.zeroStart = num.pre + 1
		}
		if num.flag&nfDecimal == 0 {
			num.pre++
		} else {
			num.post++
		}
		num.zeroEnd = num.pre
	case "B":
		if num.pre == 0 && num.post == 0 && num.flag&nfZero == 0 {
			num.flag |= nfBlank
		}
	case "D", ".":
		if id == "D" {
			num.flag |= nfLDecimal
		}
		if num.flag&nfDecimal != 0 {
			return numSyntax("multiple decimal points")
		}
		if num.flag&nfMulti != 0 {
			return numSyntax("cannot use \"V\" and decimal point together")
		}
		num.flag |= nfDecimal
	case "FM":
		num.flag |= nfFillMode
	case "S":
		if num.flag&nfLSign != 0 {
			return numSyntax("cannot use \"S\" twice")
		}
		if num.flag&(nfPlus|nfMinus|nfBracket) != 0 {
			return numSyntax("cannot use \"S\" and \"PL\"/\"MI\"/\"SG\"/\"PR\" together")
		}
		if num.flag&nfDecimal == 0 {
			num.lsign = lsignPre
			num.preLsignNum = num.pre
			num.flag |= nfLSign
		} else if num.lsign == lsignNone {
			num.lsign = lsignPost
			num.flag |= nfLSign
		}
	case "MI":
		if num.flag&nfLSign != 0 {
			return numSyntax("cannot use \"S\" and \"MI\" together")
		}
		num.flag |= nfMinus
	case "PL":
		if num.flag&nfLSign != 0 {
			return numSyntax("cannot use \"S\" and \"PL\" together")
		}
		num.flag |= nfPlus
	case "SG":
		if num.flag&nfLSign != 0 {
			return numSyntax("cannot use \"S\" and \"SG\" together")
		}
		num.flag |= nfMinus | nfPlus
	case "PR":
		if num.flag&(nfLSign|nfPlus|nfMinus) != 0 {
			return numSyntax("cannot use \"PR\" and \"S\"/\"PL\"/\"MI\"/\"SG\" together")
		}
		num.flag |= nfBracket
	case "RN", "rn":
		num.flag |= nfRoman
	case "V":
		if num.flag&nfDecimal != 0 {
			return numSyntax("cannot use \"V\" and decimal point together")
		}
		num.flag |= nfMulti
	case "E":
		if num.flag&nfEEEE != 0 {
			return numSyntax("cannot use \"EEEE\" twice")
		}
		if num.flag&(nfBlank|nfFillMode|nfLSign|nfBracket|nfMinus|nfPlus|nfRoman|nfMulti) != 0 {
			return sqlerr.New(sqlerr.SyntaxError, "\"EEEE\" is incompatible with other formats").
				WithDetail("\"EEEE\" may only be used together with digit and decimal point patterns.")
		}
		num.flag |= nfEEEE
	}
	return nil
}

func parseNumFormat(format string) ([]fmtNode, *numDesc, error) {
	nodes := parseFormat(format, numKeys, false)
	num := &numDesc{}
	for i := range nodes {
		if err := num.prepare(&nodes[i]); err != nil {
			return nil, nil, err
		}
	}
	return nodes, num, nil
}

func fillHashes(pre, post int) string {
	b := []byte(strings.Repeat("#", pre+post+1))
	b[pre] = '.'
	return string(b)
}

func intToRoman(v int64) string {
	if v > 3999 || v < 1 {
		return strings.Repeat("#", 15)
	}
	rm1 := []string{"", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX"}
	rm10 := []string{"", "X", "XX", "XXX", "XL", "L", "LX", "LXX", "LXXX", "XC"}
	rm100 := []string{"", "C", "CC", "CCC", "CD", "D", "DC", "DCC", "DCCC", "CM"}
	return strings.Repeat("M", int(v/1000)) + rm100[v/100%10] + rm10[v/10%10] + rm1[v%10]
}

// numProc is the to_char half of NUM_processor.
type numProc struct {
	num          *numDesc
	sign         byte
	signWrote    bool
	numCount     int
	outPreSpaces int
	number       string
	numberP      int
	lastRelevant int // -1 when none
	numIn        bool
	numCurr      int
	decimal      string
	out          []byte
}

func (np *numProc) at(i int) byte {
	if i < 0 || i >= len(np.number) {
		return 0
	}
	return np.number[i]
}

func (np *numProc) isPredecSpace() bool {
	return np.num.flag&nfZero == 0 && np.numberP == 0 && np.at(0) == '0' && np.num.post != 0
}

func (np *numProc) lastRelIsDot() bool {
	return np.lastRelevant >= 0 && np.at(np.lastRelevant) == '.'
}

func (np *numProc) numpart(id string) {
	num := np.num
	fm := num.flag&nfFillMode != 0
	if num.flag&nfRoman != 0 {
		return
	}
	np.numIn = false
	if !np.signWrote &&
		(np.numCurr >= np.outPreSpaces || (num.flag&nfZero != 0 && num.zeroStart == np.numCurr)) &&
		(!np.isPredecSpace() || np.lastRelIsDot()) {
		switch {
		case num.flag&nfLSign != 0:
			if num.lsign == lsignPre {
				np.out = append(np.out, pick(np.sign == '-', byte('-'), '+'))
				np.signWrote = true
			}
		case num.flag&nfBracket != 0:
			np.out = append(np.out, pick(np.sign == '+', byte(' '), '<'))
			np.signWrote = true
		case np.sign == '+':
			if !fm {
				np.out = append(np.out, ' ')
			}
			np.signWrote = true
		case np.sign == '-':
			np.out = append(np.out, '-')
			np.signWrote = true
		}
	}
	if np.numCurr < np.outPreSpaces && (num.zeroStart > np.numCurr || num.flag&nfZero == 0) {
		if !fm {
			np.out = append(np.out, ' ')
		}
	} else if num.flag&nfZero != 0 && np.numCurr < np.outPreSpaces && num.zeroStart <= np.numCurr {
		np.out = append(np.out, '0')
		np.numIn = true
	} else {
		if np.at(np.numberP) == '.' {
			if !np.lastRelIsDot() {
				np.out = append(np.out, np.decimal...)
			} else if fm && np.lastRelIsDot() {
				np.out = append(np.out, np.decimal...)
			}
		} else {
			if np.lastRelevant >= 0 && np.numberP > np.lastRelevant && id != "0" {
			} else if np.isPredecSpace() {
				if !fm {
					np.out = append(np.out, ' ')
				} else if np.lastRelIsDot() {
					np.out = append(np.out, '0')
				}
			} else {
				np.out = append(np.out, np.at(np.numberP))
				np.numIn = true
			}
		}
		if np.numberP < len(np.number) {
			np.numberP++
		}
	}
	end := np.numCount + btoi(np.outPreSpaces != 0) + btoi(num.flag&nfDecimal != 0)
	if np.lastRelevant >= 0 && np.lastRelevant == np.numberP {
		end = np.numCurr
	}
	if np.numCurr+1 == end {
		if np.signWrote && num.flag&nfBracket != 0 {
			np.out = append(np.out, pick(np.sign == '+', byte(' '), '>'))
		} else if num.flag&nfLSign != 0 && num.lsign == lsignPost {
			np.out = append(np.out, pick(np.sign == '-', byte('-'), '+'))
		}
	}
	np.numCurr++
}

func numProcessor(nodes []fmtNode, num *numDesc, number string, outPreSpaces int, sign byte) (string, error) {
	np := &numProc{num: num, number: number, lastRelevant: -1}
	if num.zeroStart != 0 {
		num.zeroStart--
	}
	if num.flag&nfEEEE != 0 {
		return number, nil
	}
	if num.flag&nfRoman != 0 {
		num.lsign, num.preLsignNum, num.post, num.pre = 0, 0, 0, 0
		outPreSpaces = 0
		sign = 0
		num.flag = nfRoman | (num.flag & nfFillMode)
	}
	np.sign = sign
	if num.flag&(nfPlus|nfMinus) != 0 {
		np.signWrote = !(num.flag&nfPlus != 0 && num.flag&nfMinus == 0)
	} else {
		if np.sign != '-' && num.flag&nfFillMode != 0 {
			num.flag &^= nfBracket
		}
		np.signWrote = np.sign == '+' && num.flag&nfFillMode != 0 && num.flag&nfLSign == 0
		if num.lsign == lsignPre && num.pre == num.preLsignNum {
			num.lsign = lsignPost
		}
	}
	np.numCount = num.post + num.pre - 1
	np.outPreSpaces = outPreSpaces
	if num.flag&nfFillMode != 0 && num.flag&nfDecimal != 0 {
		if p := strings.IndexByte(number, '.'); p >= 0 {
			lr := p
			for i := p + 1; i < len(number); i++ {
				if number[i] != '0' {
					lr = i
				}
			}
			np.lastRelevant = lr
			if num.zeroEnd > np.outPreSpaces {
				lz := len(number) - 1
				lz = min(lz, num.zeroEnd-np.outPreSpaces)
				if np.lastRelevant < lz {
					np.lastRelevant = lz
				}
			}
		}
	}
	if !np.signWrote && np.outPreSpaces == 0 {
		np.numCount++
	}
	np.decimal = "."
	for i := range nodes {
		n := &nodes[i]
		if n.kind != fmtAction {
			np.out = append(np.out, n.ch...)
			continue
		}
		fm := num.flag&nfFillMode != 0
		switch n.key.id {
		case "9", "0", ".", "D":
			np.numpart(n.key.id)
		case ",":
			if !np.numIn {
				if !fm {
					np.out = append(np.out, ' ')
				}
			} else {
				np.out = append(np.out, ',')
			}
		case "G":
			if !np.numIn {
				if !fm {
					np.out = append(np.out, ' ')
				}
			} else {
				np.out = append(np.out, ',')
			}
		case "L":
			np.out = append(np.out, ' ')
		case "RN", "rn":
			s := number[np.numberP:]
			if n.key.id == "rn" {
				s = strings.ToLower(s)
			}
			if fm {
				np.out = append(np.out, s...)
			} else {
				np.out = append(np.out, strings.Repeat(" ", max(0, 15-len(s)))+s...)
			}
		case "TH", "th":
			if num.flag&nfRoman != 0 || np.at(0) == '#' || np.sign == '-' || num.flag&nfDecimal != 0 {
				continue
			}
			th, err := numTH(number, n.key.id == "TH")
			if err != nil {
				return "", err
			}
			np.out = append(np.out, th...)
		case "MI":
			if np.sign == '-' {
				np.out = append(np.out, '-')
			} else if !fm {
				np.out = append(np.out, ' ')
			}
		case "PL":
			if np.sign == '+' {
				np.out = append(np.out, '+')
			} else if !fm {
				np.out = append(np.out, ' ')
			}
		case "SG":
			np.out = append(np.out, np.sign)
		}
	}
	out := np.out
	if i := strings.IndexByte(string(out), 0); i >= 0 {
		out = out[:i]
	}
	return string(out), nil
}

// numPrepared splits a plain decimal text (digits, optional '.') into what
// NUM_processor needs, applying the '#' overflow rule.
func numPrepared(num *numDesc, text string) (string, byte, int) {
	sign := byte('+')
	if strings.HasPrefix(text, "-") {
		sign, text = '-', text[1:]
	}
	preLen := len(text)
	if p := strings.IndexByte(text, '.'); p >= 0 {
		preLen = p
	}
	spaces := 0
	if preLen < num.pre {
		spaces = num.pre - preLen
	} else if preLen > num.pre {
		text = fillHashes(num.pre, num.post)
	}
	return text, sign, spaces
}

func intToChar(v int64, format string, is8 bool) (Datum, error) {
	if format == "" {
		return "", nil
	}
	nodes, num, err := parseNumFormat(format)
	if err != nil {
		return nil, err
	}
	var numstr string
	var sign byte
	spaces := 0
	switch {
	case num.flag&nfRoman != 0:
		numstr = intToRoman(v)
	case num.flag&nfEEEE != 0:
		if is8 {
			numstr = numericSci(apd.New(v, 0), num.post)
			if !strings.HasPrefix(numstr, "-") {
				numstr = " " + numstr
			}
		} else {
			numstr = floatSci(float64(v), num.post)
		}
	default:
		if num.flag&nfMulti != 0 {
			m := int64(math.Pow(10, float64(num.multi)))
			if is8 {
				v *= m
			} else {
				v = int64(int32(v * m))
			}
			num.pre += num.multi
		}
		s := strconv.FormatInt(v, 10)
		if strings.HasPrefix(s, "-") {
			sign, s = '-', s[1:]
		} else {
			sign = '+'
		}
		preLen := len(s)
		if num.post > 0 {
			s += "." + strings.Repeat("0", num.post)
		}
		numstr = s
		if preLen < num.pre {
			spaces = num.pre - preLen
		} else if preLen > num.pre {
			numstr = fillHashes(num.pre, num.post)
		}
	}
	return numProcessor(nodes, num, numstr, spaces, sign)
}

// pgFormatF is PostgreSQL's snprintf "%.*f", which spells the special
// values NaN, Infinity and -Infinity.
func pgFormatF(f float64, prec int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(f, 'f', prec, 64)
}

// floatSci is psprintf("%+.*e") with the '+' replaced by a space.
func floatSci(f float64, post int) string {
	s := strconv.FormatFloat(f, 'e', post, 64)
	if !strings.HasPrefix(s, "-") {
		s = " " + s
	}
	return s
}

// numericSci is numeric_out_sci.
func numericSci(d *apd.Decimal, scale int) string {
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return "NaN"
	case apd.Infinite:
		return pick(d.Negative, "-Infinity", "Infinity")
	}
	exp := int64(0)
	if !d.IsZero() {
		exp = msdPower(d)
	}
	var m apd.Decimal
	m.Set(d)
	m.Exponent -= int32(exp)
	r := roundNumeric(&m, int32(scale))
	sig := formatNumeric(r)
	es := byte('+')
	if exp < 0 {
		es, exp = '-', -exp
	}
	e := strconv.FormatInt(exp, 10)
	if len(e) < 2 {
		e = "0" + e
	}
	return sig + "e" + string(es) + e
}

func floatToChar(v float64, format string, digits int) (Datum, error) {
	if format == "" {
		return "", nil
	}
	nodes, num, err := parseNumFormat(format)
	if err != nil {
		return nil, err
	}
	var numstr string
	var sign byte
	spaces := 0
	switch {
	case num.flag&nfRoman != 0:
		numstr = intToRoman(int64(math.RoundToEven(v)))
	case num.flag&nfEEEE != 0:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			b := []byte(strings.Repeat("#", num.pre+num.post+6))
			b[0] = ' '
			b[num.pre+1] = '.'
			numstr = string(b)
		} else {
			numstr = floatSci(v, num.post)
		}
	default:
		val := v
		if num.flag&nfMulti != 0 {
			if digits == 6 { // float4 arithmetic
				val = float64(float32(v) * float32(math.Pow(10, float64(num.multi))))
			} else {
				val = v * math.Pow(10, float64(num.multi))
			}
			num.pre += num.multi
		}
		org := pgFormatF(math.Abs(val), 0)
		if l := len(org); l >= digits {
			num.post = 0
		} else if l+num.post > digits {
			num.post = digits - l
		}
		org = pgFormatF(val, num.post)
		numstr, sign, spaces = numPrepared(num, org)
	}
	return numProcessor(nodes, num, numstr, spaces, sign)
}

func numericToChar(text, format string) (Datum, error) {
	if format == "" {
		return "", nil
	}
	nodes, num, err := parseNumFormat(format)
	if err != nil {
		return nil, err
	}
	d := mustNumeric(text)
	var numstr string
	var sign byte
	spaces := 0
	switch {
	case num.flag&nfRoman != 0:
		r := roundNumeric(d, 0)
		iv, err := numericToInt(r, types.OidInt4)
		if err != nil {
			return nil, err
		}
		numstr = intToRoman(iv)
	case num.flag&nfEEEE != 0:
		numstr = numericSci(d, num.post)
		if numstr == "NaN" || numstr == "Infinity" || numstr == "-Infinity" {
			b := []byte(strings.Repeat("#", num.pre+num.post+6))
			b[0] = ' '
			b[num.pre+1] = '.'
			numstr = string(b)
		} else if !strings.HasPrefix(numstr, "-") {
			numstr = " " + numstr
		}
	default:
		val := d
		if num.flag&nfMulti != 0 {
			var m apd.Decimal
			m.Set(d)
			m.Exponent += int32(num.multi)
			val = &m
			num.pre += num.multi
		}
		org := formatNumeric(roundNumeric(val, int32(num.post)))
		numstr, sign, spaces = numPrepared(num, org)
	}
	return numProcessor(nodes, num, numstr, spaces, sign)
}

func init() {
	RegisterScalar("to_char",
		Overload{Args: []types.T{types.Int4, types.Text}, Ret: types.Text, Impl: Strict(types.Text, func(ctx *Ctx, a []Datum) (Datum, error) {
			return intToChar(i0(a, 0), s0(a, 1), false)
		})},
		Overload{Args: []types.T{types.Int8, types.Text}, Ret: types.Text, Impl: Strict(types.Text, func(ctx *Ctx, a []Datum) (Datum, error) {
			return intToChar(i0(a, 0), s0(a, 1), true)
		})},
		Overload{Args: []types.T{types.Float4, types.Text}, Ret: types.Text, Impl: Strict(types.Text, func(ctx *Ctx, a []Datum) (Datum, error) {
			return floatToChar(float64(float32(a[0].(float64))), s0(a, 1), 6)
		})},
		Overload{Args: []types.T{types.Float8, types.Text}, Ret: types.Text, Impl: Strict(types.Text, func(ctx *Ctx, a []Datum) (Datum, error) {
			return floatToChar(a[0].(float64), s0(a, 1), 15)
		})},
		Overload{Args: []types.T{types.Numeric, types.Text}, Ret: types.Text, Impl: Strict(types.Text, func(ctx *Ctx, a []Datum) (Datum, error) {
			return numericToChar(s0(a, 0), s0(a, 1))
		})},
	)
}
