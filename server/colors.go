package server

import "strings"

// validColor reports whether c is a CSS named color (case-insensitive) or a
// hexadecimal color of 3, 4, 6 or 8 digits: the forms the portal accepts.
func validColor(c string) bool {
	if hexColor(c) {
		return true
	}
	_, ok := cssColors[strings.ToLower(c)]
	return ok
}

// hexColor reports whether c is # and 3, 4, 6 or 8 hexadecimal digits.
func hexColor(c string) bool {
	digits, ok := strings.CutPrefix(c, "#")
	switch len(digits) {
	case 3, 4, 6, 8:
	default:
		return false
	}
	for i := range len(digits) {
		switch d := digits[i]; {
		case '0' <= d && d <= '9', 'a' <= d && d <= 'f', 'A' <= d && d <= 'F':
		default:
			return false
		}
	}
	return ok
}

// cssColors are the CSS Color Module Level 4 named colors, and transparent.
var cssColors = map[string]struct{}{}

func init() {
	for _, n := range strings.Fields(`aliceblue antiquewhite aqua aquamarine azure beige bisque black blanchedalmond
	blue blueviolet brown burlywood cadetblue chartreuse chocolate coral cornflowerblue cornsilk crimson cyan
	darkblue darkcyan darkgoldenrod darkgray darkgreen darkgrey darkkhaki darkmagenta darkolivegreen darkorange
	darkorchid darkred darksalmon darkseagreen darkslateblue darkslategray darkslategrey darkturquoise darkviolet
	deeppink deepskyblue dimgray dimgrey dodgerblue firebrick floralwhite forestgreen fuchsia gainsboro ghostwhite
	gold goldenrod gray green greenyellow grey honeydew hotpink indianred indigo ivory khaki lavender lavenderblush
	lawngreen lemonchiffon lightblue lightcoral lightcyan lightgoldenrodyellow lightgray lightgreen lightgrey
	lightpink lightsalmon lightseagreen lightskyblue lightslategray lightslategrey lightsteelblue lightyellow lime
	limegreen linen magenta maroon mediumaquamarine mediumblue mediumorchid mediumpurple mediumseagreen
	mediumslateblue mediumspringgreen mediumturquoise mediumvioletred midnightblue mintcream mistyrose moccasin
	navajowhite navy oldlace olive olivedrab orange orangered orchid palegoldenrod palegreen paleturquoise
	palevioletred papayawhip peachpuff peru pink plum powderblue purple rebeccapurple red rosybrown royalblue
	saddlebrown salmon sandybrown seagreen seashell sienna silver skyblue slateblue slategray slategrey snow
	springgreen steelblue tan teal thistle tomato turquoise violet wheat white whitesmoke yellow yellowgreen
	transparent`) {
		cssColors[n] = struct{}{}
	}
}
