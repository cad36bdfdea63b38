/** Words the legal generator builds names and text from: per law field, its law and its topics. */

export interface FieldVocabulary {
  /** Name of the main law of the field (Luật …), when there is one. */
  law?: string;
  topics: readonly string[];
}

/** Indexed by law-field id - 1 (see LEGAL_FIELDS). */
export const FIELD_VOCABULARY: readonly FieldVocabulary[] = [
  { law: 'Đất đai', topics: ['bồi thường, hỗ trợ, tái định cư khi Nhà nước thu hồi đất', 'giá đất', 'cấp Giấy chứng nhận quyền sử dụng đất', 'thu tiền sử dụng đất, thu tiền thuê đất', 'điều tra, đánh giá đất đai'] },
  { law: 'Quản lý thuế', topics: ['thuế giá trị gia tăng', 'thuế thu nhập doanh nghiệp', 'thuế thu nhập cá nhân', 'lệ phí trước bạ', 'hóa đơn, chứng từ điện tử', 'phí, lệ phí thuộc thẩm quyền của Hội đồng nhân dân tỉnh'] },
  { law: 'Doanh nghiệp', topics: ['đăng ký doanh nghiệp', 'quản trị công ty áp dụng đối với công ty đại chúng', 'hộ kinh doanh', 'doanh nghiệp nhỏ và vừa', 'sắp xếp, đổi mới doanh nghiệp nhà nước'] },
  { law: 'Lao động', topics: ['mức lương tối thiểu đối với người lao động làm việc theo hợp đồng lao động', 'thời giờ làm việc, thời giờ nghỉ ngơi', 'an toàn, vệ sinh lao động', 'tiền lương đối với cán bộ, công chức, viên chức', 'người lao động Việt Nam đi làm việc ở nước ngoài'] },
  { law: 'Xây dựng', topics: ['quản lý dự án đầu tư xây dựng', 'quản lý chi phí đầu tư xây dựng', 'cấp giấy phép xây dựng', 'quy hoạch đô thị và nông thôn', 'quản lý chất lượng công trình xây dựng'] },
  { law: 'Trật tự, an toàn giao thông đường bộ', topics: ['kinh doanh và điều kiện kinh doanh vận tải bằng xe ô tô', 'đào tạo, sát hạch, cấp giấy phép lái xe', 'đăng kiểm phương tiện giao thông cơ giới đường bộ', 'quản lý, khai thác kết cấu hạ tầng giao thông đường bộ'] },
  { law: 'Bảo hiểm xã hội', topics: ['bảo hiểm xã hội bắt buộc', 'bảo hiểm y tế', 'bảo hiểm thất nghiệp', 'kinh doanh bảo hiểm', 'bảo hiểm bắt buộc trách nhiệm dân sự của chủ xe cơ giới'] },
  { law: 'Ngân sách nhà nước', topics: ['lập, chấp hành và quyết toán ngân sách nhà nước', 'quản lý, sử dụng tài sản công', 'quản lý nợ công', 'kiểm soát chi qua Kho bạc Nhà nước', 'chế độ công tác phí, chế độ chi hội nghị'] },
  { law: 'Các tổ chức tín dụng', topics: ['hoạt động cho vay của tổ chức tín dụng', 'dự trữ bắt buộc', 'thanh toán không dùng tiền mặt', 'quản lý ngoại hối', 'tỷ lệ an toàn vốn'] },
  { law: 'Thương mại', topics: ['thương mại điện tử', 'hoạt động khuyến mại', 'kinh doanh xăng dầu', 'nhượng quyền thương mại', 'quản lý thị trường'] },
  { law: 'Đầu tư', topics: ['ưu đãi đầu tư', 'đầu tư theo phương thức đối tác công tư', 'đầu tư ra nước ngoài', 'khu công nghiệp và khu kinh tế', 'đầu tư công'] },
  { law: 'Tổ chức chính quyền địa phương', topics: ['sắp xếp đơn vị hành chính cấp xã', 'chức năng, nhiệm vụ, quyền hạn và cơ cấu tổ chức', 'vị trí việc làm và biên chế công chức', 'thủ tục hành chính', 'văn thư, lưu trữ'] },
  { law: 'Thi hành án dân sự', topics: ['tổ chức và hoạt động của Thừa phát lại', 'công chứng, chứng thực', 'hộ tịch', 'trợ giúp pháp lý', 'lý lịch tư pháp'] },
  { law: 'Hình sự', topics: ['phòng, chống tội phạm', 'thi hành án hình sự', 'đặc xá', 'phòng, chống ma túy', 'phòng, chống mua bán người'] },
  { law: 'Dân sự', topics: ['giao dịch bảo đảm', 'đăng ký biện pháp bảo đảm', 'hợp đồng dân sự', 'thừa kế', 'bồi thường thiệt hại ngoài hợp đồng'] },
  { law: 'Giáo dục', topics: ['chương trình giáo dục phổ thông', 'tuyển sinh đại học', 'chế độ làm việc của giáo viên', 'kiểm định chất lượng giáo dục', 'học phí và chính sách miễn, giảm học phí'] },
  { law: 'Khám bệnh, chữa bệnh', topics: ['giá dịch vụ khám bệnh, chữa bệnh', 'đăng ký lưu hành thuốc', 'trang thiết bị y tế', 'phòng, chống bệnh truyền nhiễm', 'thể dục, thể thao quần chúng'] },
  { law: 'Bảo vệ môi trường', topics: ['đánh giá tác động môi trường', 'quản lý chất thải rắn', 'tài nguyên nước', 'khai thác khoáng sản', 'ứng phó với biến đổi khí hậu'] },
  { law: 'Giao dịch điện tử', topics: ['chữ ký số và dịch vụ chứng thực chữ ký số', 'bảo vệ dữ liệu cá nhân', 'an toàn thông tin mạng', 'chuyển đổi số', 'định danh và xác thực điện tử'] },
  { law: 'Sở hữu trí tuệ', topics: ['quyền tác giả, quyền liên quan', 'sở hữu công nghiệp', 'bảo hộ giống cây trồng', 'nhãn hiệu', 'sáng chế'] },
  { law: 'Hải quan', topics: ['thủ tục hải quan', 'xuất xứ hàng hóa', 'biểu thuế xuất khẩu, biểu thuế nhập khẩu ưu đãi', 'kiểm tra chuyên ngành hàng hóa xuất nhập khẩu', 'tạm nhập, tái xuất'] },
  { law: 'Kế toán', topics: ['chế độ kế toán doanh nghiệp', 'kiểm toán độc lập', 'chế độ kế toán hành chính, sự nghiệp', 'hóa đơn điện tử', 'chuẩn mực kế toán'] },
  { law: 'Di sản văn hóa', topics: ['quảng cáo', 'lễ hội', 'du lịch', 'báo chí', 'gia đình và bình đẳng giới'] },
  { law: 'Chứng khoán', topics: ['chào bán chứng khoán ra công chúng', 'công bố thông tin trên thị trường chứng khoán', 'quỹ đầu tư chứng khoán', 'trái phiếu doanh nghiệp', 'giao dịch chứng khoán'] },
  { law: 'Xử lý vi phạm hành chính', topics: ['xử phạt vi phạm hành chính', 'cưỡng chế thi hành quyết định xử phạt', 'biện pháp xử lý hành chính', 'thủ tục xử phạt', 'thẩm quyền lập biên bản'] },
  { law: 'Tố tụng hành chính', topics: ['thủ tục giải quyết vụ án', 'hòa giải, đối thoại tại Tòa án', 'án phí, lệ phí Tòa án', 'giám định tư pháp', 'thi hành án hành chính'] },
  { law: 'Kinh doanh bất động sản', topics: ['nhà ở xã hội', 'kinh doanh bất động sản', 'quản lý, sử dụng nhà chung cư', 'phát triển và quản lý nhà ở', 'sàn giao dịch bất động sản'] },
  { topics: ['công tác thi đua, khen thưởng', 'phòng, chống thiên tai', 'dân tộc và tôn giáo', 'công tác dân số', 'cải cách hành chính'] },
];

export const CODES = ['Dân sự', 'Hình sự', 'Lao động', 'Tố tụng dân sự', 'Tố tụng hình sự', 'Hàng hải Việt Nam'] as const;

export const CASE_KINDS = [
  { code: 'DS', disputes: ['tranh chấp quyền sử dụng đất', 'tranh chấp hợp đồng vay tài sản', 'tranh chấp thừa kế tài sản', 'tranh chấp hợp đồng chuyển nhượng quyền sử dụng đất'] },
  { code: 'HS', disputes: ['tội trộm cắp tài sản', 'tội lừa đảo chiếm đoạt tài sản', 'tội vi phạm quy định về tham gia giao thông đường bộ', 'tội cố ý gây thương tích'] },
  { code: 'KDTM', disputes: ['tranh chấp hợp đồng mua bán hàng hóa', 'tranh chấp hợp đồng tín dụng', 'tranh chấp hợp đồng xây dựng'] },
  { code: 'HNGĐ', disputes: ['ly hôn, tranh chấp nuôi con chung', 'tranh chấp chia tài sản sau ly hôn'] },
  { code: 'LĐ', disputes: ['tranh chấp đơn phương chấm dứt hợp đồng lao động', 'tranh chấp về bảo hiểm xã hội'] },
  { code: 'HC', disputes: ['khiếu kiện quyết định hành chính về quản lý đất đai', 'khiếu kiện quyết định xử phạt vi phạm hành chính'] },
] as const;

export const COUNTRIES = ['Nhật Bản', 'Hàn Quốc', 'Cộng hòa Pháp', 'Cộng hòa Liên bang Đức', 'Ô-xtrây-li-a', 'Cộng hòa Xinh-ga-po', 'Vương quốc Campuchia', 'Cộng hòa Dân chủ Nhân dân Lào', 'Hợp chúng quốc Hoa Kỳ', 'Liên bang Nga'];

export const TREATY_TOPICS = ['tránh đánh thuế hai lần và ngăn ngừa việc trốn lậu thuế đối với các loại thuế đánh vào thu nhập', 'khuyến khích và bảo hộ đầu tư', 'hợp tác trong lĩnh vực lao động', 'tương trợ tư pháp về dân sự', 'vận tải đường bộ qua biên giới', 'hợp tác và hỗ trợ lẫn nhau trong lĩnh vực hải quan'];

export const STANDARD_TITLES = ['Thiết kế kết cấu bê tông và bê tông cốt thép', 'Nước sạch sử dụng cho mục đích sinh hoạt', 'Chất lượng không khí xung quanh', 'An toàn cháy cho nhà và công trình', 'Xăng không chì - Yêu cầu kỹ thuật', 'Gạo trắng - Yêu cầu kỹ thuật', 'Công trình giao thông - Đường ô tô - Yêu cầu thiết kế', 'Thiết bị điện gia dụng - An toàn', 'Phân bón - Phương pháp thử', 'Khí thải công nghiệp đối với bụi và các chất vô cơ'];

export const FAMILY = ['Nguyễn', 'Trần', 'Lê', 'Phạm', 'Hoàng', 'Huỳnh', 'Phan', 'Vũ', 'Võ', 'Đặng', 'Bùi', 'Đỗ', 'Hồ', 'Ngô', 'Dương', 'Lý'];
export const MIDDLE = ['Văn', 'Thị', 'Hữu', 'Đức', 'Minh', 'Thanh', 'Quốc', 'Thu', 'Ngọc', 'Xuân', 'Hồng', 'Anh'];
export const GIVEN = ['An', 'Bình', 'Cường', 'Dũng', 'Giang', 'Hà', 'Hải', 'Hạnh', 'Hùng', 'Khánh', 'Lan', 'Long', 'Mai', 'Nam', 'Phong', 'Phương', 'Quang', 'Sơn', 'Tâm', 'Thắng', 'Trang', 'Tuấn', 'Việt', 'Yến'];
