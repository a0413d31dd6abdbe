@cap:policies
Feature: Policies
  Policies give privileges to users. Creating, changing, deleting and listing policies
  needs MANAGE_POLICIES; no other privilege stands in for it, and a refused change leaves
  the policies as they were. A policy applies to the users it names, or to all users, and
  counts only while ACTIVE. A policy is created ACTIVE, INACTIVE or DRAFT; one written
  through the API is editable (DataHubPolicyInfo's default), and so are the starting
  policies every user holds. Updating and deleting answer the policy's URN; a METADATA
  policy without a resource filter, or whose filter names nothing, covers every entity
  (PolicyEngine). Listing by a query finds the policies whose name has it.
  Recommended beyond DataHub (RFC 9110, section 15.5.1: a request the server cannot make
  sense of is a 400): a policy without a name, with a privilege the service does not know,
  or naming a user or resource by something that is not a URN is refused as a bad
  request, rather than stored to grant nothing; deletePolicy and updatePolicy refuse a URN
  that is not a policy's (least privilege: MANAGE_POLICIES must not delete a tag); a page
  from a negative position is refused.

  Background:
    Given Ann holds a personal access token

  @id:policy-01 @must @core
  Scenario Outline: Someone granted MANAGE_POLICIES <action>
    Given Ann is granted MANAGE_POLICIES
    And the administrator has made a policy
    When Ann <action>
    Then the policies show what Ann did

    Examples:
      | action             |
      | creates a policy   |
      | updates the policy |
      | deletes the policy |
      | lists the policies |

  @id:policy-02 @must @core
  Scenario Outline: Someone granted only <privilege> is refused when she <action>
    Given Ann is granted <privilege>
    And the administrator has made a policy
    When Ann <action>
    Then Ann is rejected as unauthorized

    Examples:
      | privilege            | action             |
      | MANAGE_ACCESS_TOKENS | creates a policy   |
      | MANAGE_ACCESS_TOKENS | updates the policy |
      | MANAGE_ACCESS_TOKENS | deletes the policy |
      | MANAGE_ACCESS_TOKENS | lists the policies |
      | MANAGE_TAGS          | updates the policy |

  @id:policy-03 @must @core
  Scenario: A privilege granted to someone else does not reach another user
    Given Bob holds a personal access token
    And Bob is granted CREATE_TAGS
    Then Bob can create a tag
    But Ann cannot create a tag

  @id:policy-04 @must @core
  Scenario: A policy made INACTIVE grants nothing
    Given the administrator has made an INACTIVE policy granting Ann CREATE_TAGS
    Then Ann cannot create a tag

  # This scenario gives every user a privilege while it runs, so it runs alone.
  @id:policy-05 @must @core @exclusive
  Scenario: A privilege granted to all users reaches every user
    Given Bob holds a personal access token
    And a policy grants every user CREATE_TAGS
    Then Ann can create a tag
    And Bob can create a tag

  @id:policy-06 @must @core
  Scenario Outline: A policy can be created <state>
    When the administrator creates a <state> policy
    Then the policy reads back as the administrator wrote it

    Examples:
      | state    |
      | ACTIVE   |
      | INACTIVE |
      | DRAFT    |

  @id:policy-07 @must @core
  Scenario: A policy written through the API is editable
    Given the administrator has made a policy
    Then the policy is listed as editable
    When the administrator changes the policy
    Then the policy is listed as editable

  @id:policy-08 @must @core
  Scenario Outline: The starting policy <policy> is listed as <editable>
    Then the starting policy <policy> is listed as <editable>

    # DataHub's own starting policies: the root user's two are not
    # editable, the two that apply to every user are.
    Examples:
      | policy                                    | editable     |
      | urn:li:dataHubPolicy:0                    | not editable |
      | urn:li:dataHubPolicy:1                    | not editable |
      | urn:li:dataHubPolicy:7                    | editable     |
      | urn:li:dataHubPolicy:view-entity-page-all | editable     |

  @id:policy-09 @must @core
  Scenario: Updating a policy that does not exist either makes it or is refused
    When the administrator updates a policy that does not exist
    Then either the update is refused and there is no such policy, or the policy now exists as sent

  @id:policy-10 @must @core
  Scenario: Deleting a policy that does not exist answers its URN or is refused
    When the administrator deletes a policy that does not exist
    Then the answer is the policy's URN or a refusal, and there is no such policy

  @id:policy-11 @must @core
  Scenario Outline: A policy is not <done> by a malformed URN
    Given the administrator has made a policy
    When the administrator <action> a policy by a malformed URN
    Then the request is refused and the policies are as they were

    Examples:
      | done    | action  |
      | updated | updates |
      | deleted | deletes |

  @id:policy-12 @should @core
  Scenario Outline: A policy is not <done> by <a URN that is not a policy's>, but refused as a bad request
    Given a tag exists
    When the administrator <action> a policy by <a URN that is not a policy's>
    Then the request is refused as a bad request and the policies and the tag are as they were

    Examples:
      | done    | action  | a URN that is not a policy's |
      | updated | updates | a malformed URN              |
      | deleted | deletes | a malformed URN              |
      | deleted | deletes | the tag's URN                |

  @id:policy-13 @must @core
  Scenario: Listing policies by a word of their name finds those and no others
    Given the administrator has made two policies whose names share no word
    When the administrator lists the policies by the first one's word
    Then the list includes the first policy and not the second

  @id:policy-14 @must @core
  Scenario Outline: A METADATA policy with <resources> covers every entity
    Given Ann is granted EDIT_ENTITY by a policy with <resources>
    When Ann ingests a description for a new dataset
    Then the ingestion is acknowledged

    Examples:
      | resources                            |
      | no resource filter                   |
      | a resource filter that names nothing |

  @id:policy-15 @should @core
  Scenario Outline: Creating a policy that <defect> is refused as a bad request
    When the administrator creates a policy that <defect>
    Then the request is refused as a bad request and the policies are as they were

    Examples:
      | defect                                       |
      | has no name                                  |
      | grants a privilege the service does not know |
      | names a user by a malformed URN              |
      | covers a resource by a malformed URN         |

  @id:policy-16 @should @core
  Scenario Outline: Changing a policy so that it <defect> is refused as a bad request
    Given the administrator has made a policy
    When the administrator changes the policy so that it <defect>
    Then the request is refused as a bad request and the policies are as they were

    Examples:
      | defect                                       |
      | has no name                                  |
      | grants a privilege the service does not know |
      | names a user by a malformed URN              |
      | covers a resource by a malformed URN         |

  @id:policy-17 @should @core
  Scenario: Listing policies from a negative position is refused as a bad request
    When the administrator lists the policies from position -1
    Then the request is refused as a bad request and the policies are as they were
