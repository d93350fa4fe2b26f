package parse

//go:generate go run gen_keywords.go

// Keyword is one SQL keyword as pg_get_keywords() describes it.
type Keyword struct {
	Word string
	// Category is 'U' (unreserved), 'C' (unreserved, cannot be a function
	// or type name), 'T' (reserved, can be a function or type name) or
	// 'R' (reserved).
	Category  byte
	BareLabel bool // can be a column label without AS
}

// Keywords lists PostgreSQL 15's keywords in alphabetical order, as
// pg_get_keywords() returns them.
func Keywords() []Keyword { return keywordsPG15 }

// CategoryDescription is pg_get_keywords()'s catdesc for a category.
func CategoryDescription(c byte) string {
	switch c {
	case 'U':
		return "unreserved"
	case 'C':
		return "unreserved (cannot be function or type name)"
	case 'T':
		return "reserved (can be function or type name)"
	}
	return "reserved"
}

// BareLabelDescription is pg_get_keywords()'s baredesc.
func BareLabelDescription(bare bool) string {
	if bare {
		return "can be bare label"
	}
	return "requires AS"
}
