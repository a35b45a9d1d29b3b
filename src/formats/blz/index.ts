// BLZ ("bottom LZ") code compression used by DS ARM9 binaries and overlays. Pure: bytes in, bytes out.
export { blzDecode } from './decode.js';
export { blzEncode, blzEncodeSteps } from './encode.js';
export { blzIsCodedFooter, blzParseFooter } from './footer.js';
