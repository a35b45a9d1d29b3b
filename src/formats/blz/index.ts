// BLZ ("bottom LZ") code compression used by DS ARM9 binaries and overlays. Pure: bytes in, bytes out.
export { type BlzDecodeOptions, blzDecode } from './decode.js';
export { BLZ_MAX_CODED_REGION, type BlzEncodeOptions, blzEncode, blzEncodeSteps } from './encode.js';
export { type BlzFooter, blzIsCodedFooter, blzParseFooter } from './footer.js';
