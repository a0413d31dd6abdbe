package steps

import "testing"

func TestPercentEncode(t *testing.T) {
	got := percentEncode("urn:li:dataset:(urn:li:dataPlatform:hive,a-b_c.d~e,PROD)")
	want := "urn%3Ali%3Adataset%3A%28urn%3Ali%3AdataPlatform%3Ahive%2Ca-b_c.d~e%2CPROD%29"
	if got != want {
		t.Errorf("percentEncode = %s, want %s", got, want)
	}
}
