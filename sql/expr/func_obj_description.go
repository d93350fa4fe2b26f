package expr

// ObjectDescriptions is what obj_description(oid, catalog) asks of the
// catalog (pg_description's rows); a catalog without it has no comments.
type ObjectDescriptions interface {
	// ObjectDescription is the comment on object oid of the system
	// catalog called catalogName ("pg_class", "pg_namespace", …).
	ObjectDescription(oid uint32, catalogName string) (string, bool)
}

func objDescription(ctx *Ctx, a []Datum) (Datum, error) {
	d, ok := ctx.Catalog.(ObjectDescriptions)
	if !ok {
		return nil, nil
	}
	if s, ok := d.ObjectDescription(uint32(a[0].(int64)), a[1].(string)); ok {
		return s, nil
	}
	return nil, nil
}
