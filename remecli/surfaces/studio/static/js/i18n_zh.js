// Chinese for every string the page shows (keys are the English text).

export const ZH = {};
